import { OPERATIONS, type OperationId, type Operations } from '@svc/protocol';
import type { z } from 'zod';
import { encodePath, type Query, type RestClient } from './rest-client';

type Op<Id extends OperationId> = Operations[Id];
type SuccessStatus = 200 | 201 | 202;

/** The schema of each documented success answer with a JSON body. */
type SuccessSchemas<O> = O extends { responses: infer R }
  ? { [K in keyof R & SuccessStatus]: R[K] extends { schema: infer S extends z.ZodType } ? S : never }[keyof R &
      SuccessStatus]
  : never;

/** What `call` resolves with: the parsed success body, or nothing for an answer without one (204). */
export type CallResult<Id extends OperationId> = [SuccessSchemas<Op<Id>>] extends [never]
  ? void
  : z.output<SuccessSchemas<Op<Id>>>;

type ParamsPart<O> = O extends { params: z.ZodType } ? { params: z.input<O['params']> } : { params?: never };
type QueryPart<O> = O extends { query: z.ZodType } ? { query?: z.input<O['query']> } : { query?: never };
type BodyPart<O> = O extends { body: { schema: z.ZodType; required: true } }
  ? { body: z.input<O['body']['schema']> }
  : O extends { body: { schema: z.ZodType } }
    ? { body?: z.input<O['body']['schema']> }
    : { body?: never };

/** The request of an operation, typed from the protocol's table. */
export type CallInput<Id extends OperationId> = ParamsPart<Op<Id>> &
  QueryPart<Op<Id>> &
  BodyPart<Op<Id>> & { signal?: AbortSignal };

/** The operation's path with its parameters filled in (a trailing `{path}` keeps its `/`). */
export function operationPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${path}: parameter ${name} is missing`);
    return name === 'path' ? encodePath(value) : encodeURIComponent(value);
  });
}

/**
 * Calls an operation of the protocol's table by its id: method and path from the table, the body sent as
 * JSON, the answer checked against the documented success schema (e.g.
 * `callOperation(client, 'getWorkflow', { params: { id } })` resolves with a `Workflow`).
 */
export async function callOperation<Id extends OperationId>(
  client: RestClient,
  id: Id,
  input: CallInput<Id>,
): Promise<CallResult<Id>> {
  const op = OPERATIONS[id];
  const { params, query, body, signal } = input as {
    params?: Record<string, string>;
    query?: Query;
    body?: unknown;
    signal?: AbortSignal;
  };
  const init = { method: op.method, query, signal, ...(body === undefined ? {} : { json: body }) };
  const path = operationPath(op.path, params);
  const schema = successSchema(op.responses as Record<number, { schema?: z.ZodType; contentType?: unknown }>);
  if (!schema) return (await client.requestVoid(path, init)) as CallResult<Id>;
  return (await client.request(path, schema, init)) as CallResult<Id>;
}

function successSchema(responses: Record<number, { schema?: z.ZodType; contentType?: unknown }>) {
  for (const status of [200, 201, 202]) {
    const response = responses[status];
    if (response?.schema && (response.contentType === undefined || response.contentType === 'application/json'))
      return response.schema;
  }
  return undefined;
}
