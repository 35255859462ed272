import { z } from 'zod';
import type { AuthProviderKind } from '../rest/auth';
import type { PolicyAction } from './actions';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A response body: JSON of a schema, or other media types (text, HTML, a stream, bytes). */
export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  /** default `application/json` when a schema is given; several: the same answer in each form */
  contentType?: string | readonly string[];
  headers?: Record<string, string>;
}

/** The request body of an operation. */
export interface BodyDoc {
  schema?: z.ZodType;
  /** default `application/json` */
  contentTypes?: readonly string[];
  description?: string;
  required?: boolean;
}

/** Path parameters: every one a string, described. */
export type PathParams = z.ZodObject<Record<string, z.ZodString>>;

/**
 * One operation of the API: what the OpenAPI document says about it, what the server mounts and
 * validates, which policy guards it and what the typed client sends and gets back.
 */
export interface Operation {
  method: HttpMethod;
  /** the full path, `{name}` for parameters (a trailing `{path}` may hold `/`) */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** `public`: no credential needed; otherwise the session cookie or a bearer token */
  auth: 'public' | 'required';
  /** `bearer`: only `Authorization: Bearer`, never the session cookie (default: either) */
  credentials?: 'bearer';
  /** the policy action(s) the handler authorizes with (several: chosen by the request, e.g. a token's scope) */
  action: PolicyAction | readonly PolicyAction[];
  params?: PathParams;
  query?: z.ZodObject;
  /** request headers the operation reads */
  headers?: Record<string, string>;
  body?: BodyDoc;
  responses: Record<number, ResponseDoc>;
  /** error statuses besides the ones every operation of its kind may answer */
  errors?: readonly number[];
  /** only served by these sign-in providers */
  providers?: readonly AuthProviderKind[];
}

/** An operation with its id (the key it is declared under). */
export type IdentifiedOperation = Operation & { id: string };

/** Keeps each operation's literal type (for the typed client) while checking it is an Operation. */
export const defineOperations = <T extends Record<string, Operation>>(operations: T): T => operations;

/** `{ id: 'workflow id' }` -> the zod object of those path parameters, each described. */
export function pathParams<K extends string>(described: Record<K, string>): z.ZodObject<Record<K, z.ZodString>> {
  const shape = Object.fromEntries(
    Object.entries<string>(described).map(([name, text]) => [name, z.string().describe(text)]),
  ) as Record<K, z.ZodString>;
  return z.object(shape);
}

export const API = '/svc/api';
export const json = <S extends z.ZodType>(description: string, schema: S) => ({ description, schema });
export const noContent: ResponseDoc = { description: 'done (no body)' };
export const jsonBody = <S extends z.ZodType>(schema: S, required = true) => ({ schema, required });
export const workflowId = pathParams({ id: 'workflow id' });
export const projectId = pathParams({ id: 'project id' });
