import type { z } from 'zod';
import { parseWith } from '@svc/protocol';
import { ApiError, errorFromResponse } from './api-error';

export { ApiError, errorFromResponse, errorMessage, isNotFound, isUnauthenticated } from './api-error';

/** REST base path (CONTRACT section 1). */
export const API_BASE = '/svc/api';

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** sent as JSON */
  json?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
}

/** `/svc/api` + path + query string; absolute `/svc/...` paths are kept as they are. */
export function apiUrl(path: string, query: RequestOptions['query'] = {}): string {
  const base = path.startsWith('/svc/') ? path : `${API_BASE}${path}`;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const search = params.toString();
  return search ? `${base}?${search}` : base;
}

/** Validates a response body against its protocol schema; a mismatch is a `bad_response` ApiError. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, status: number, path: string): z.output<S> {
  const result = parseWith(schema, body);
  if (!result.ok) throw new ApiError(status, 'bad_response', `unexpected answer from ${path}: ${result.error.message}`);
  return result.value;
}

async function send(path: string, options: RequestOptions, accept: string): Promise<Response> {
  const headers: Record<string, string> = { accept };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  let response: Response;
  try {
    response = await fetch(apiUrl(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body,
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'network_error', 'the server cannot be reached; check the connection and try again');
  }
  if (!response.ok)
    throw errorFromResponse(response.status, await response.text(), response.headers.get('x-request-id'));
  return response;
}

/** A JSON call whose answer is checked against `schema`. */
export async function apiJson<S extends z.ZodType>(
  path: string,
  schema: S,
  options: RequestOptions = {},
): Promise<z.output<S>> {
  const response = await send(path, options, 'application/json');
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(response.status, 'bad_response', `the answer from ${path} is not JSON`);
  }
  return parseBody(schema, body, response.status, path);
}

/** A call answered with no body (204) or one the caller does not need. */
export async function apiVoid(path: string, options: RequestOptions = {}): Promise<void> {
  await send(path, options, 'application/json');
}

/** A call answered with text (markdown, plain text). */
export async function apiText(path: string, options: RequestOptions = {}): Promise<string> {
  const response = await send(path, options, 'text/plain, text/markdown, */*');
  return response.text();
}
