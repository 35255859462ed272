import { ErrorBodySchema, type ErrorCode } from '@svc/protocol';

/** Codes of failures that never reached the API's error helper (network down, unexpected answer). */
export type ClientErrorCode = 'network_error' | 'bad_response';

/** Every failed API call throws this: the contract's error body, or a client-side reason. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | ClientErrorCode,
    message: string,
    readonly requestId: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Turns a failed response's status and body text into an ApiError; never throws. */
export function errorFromResponse(status: number, bodyText: string, requestId: string | null = null): ApiError {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    json = undefined;
  }
  const parsed = ErrorBodySchema.safeParse(json);
  if (parsed.success) {
    const { code, message, request_id } = parsed.data.error;
    return new ApiError(status, code, message, request_id || requestId);
  }
  // A proxy or a crashed server answers without the contract's body: keep its status visible.
  const snippet = bodyText.trim().slice(0, 200);
  return new ApiError(
    status,
    'bad_response',
    `the server answered ${status}${snippet ? `: ${snippet}` : ''}`,
    requestId,
  );
}

/** The message to show a person for anything thrown by a query or mutation. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export const isUnauthenticated = (error: unknown): boolean =>
  error instanceof ApiError && error.code === 'unauthenticated';
export const isNotFound = (error: unknown): boolean => error instanceof ApiError && error.code === 'not_found';
