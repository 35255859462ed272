import { ApiError, SvcClient, type CallOptions } from '@svc/client';
import type { z } from 'zod';

export {
  API_BASE,
  ApiError,
  apiPath as apiUrl,
  errorFromResponse,
  isNotFound,
  isUnauthenticated,
  type ClientErrorCode,
} from '@svc/client';

/** The app's one REST client: the page's own origin, signed in by the session cookie. */
export const apiClient = new SvcClient({ auth: { credentials: 'same-origin' } });

export type RequestOptions = Pick<CallOptions, 'method' | 'json' | 'query' | 'signal'>;

/** A JSON call whose answer is checked against `schema` (a mismatch is a `bad_response` ApiError). */
export function apiJson<S extends z.ZodType>(
  path: string,
  schema: S,
  options: RequestOptions = {},
): Promise<z.output<S>> {
  return apiClient.request(path, schema, options);
}

/** A call answered with no body (204) or one the caller does not need. */
export function apiVoid(path: string, options: RequestOptions = {}): Promise<void> {
  return apiClient.requestVoid(path, options);
}

/** A call answered with text (markdown, plain text). */
export function apiText(path: string, options: RequestOptions = {}): Promise<string> {
  return apiClient.requestText(path, options);
}

/** The message to show a person for anything thrown by a query or mutation. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
