import { ErrorBodySchema, type ErrorCode } from '@svc/protocol';

/** Codes of failures that never reached the API's error helper (network down, unexpected answer). */
export type ClientErrorCode = 'network_error' | 'bad_response';

export interface ApiErrorDetails {
  /** the contract body's `request_id`, else the `X-Request-Id` header */
  requestId?: string | null;
  /** the call that failed, e.g. `GET /svc/api/kb` (for logs; not part of `message`) */
  request?: string | null;
}

/** Every failed REST call throws this: the contract's error body, or a client-side reason. */
export class ApiError extends Error {
  readonly requestId: string | null;
  readonly request: string | null;

  constructor(
    readonly status: number,
    readonly code: ErrorCode | ClientErrorCode,
    message: string,
    details: ApiErrorDetails = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.requestId = details.requestId ?? null;
    this.request = details.request ?? null;
  }
}

/** Turns a failed response's status and body text into an ApiError; never throws. */
export function errorFromResponse(status: number, bodyText: string, details: ApiErrorDetails = {}): ApiError {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    json = undefined;
  }
  const parsed = ErrorBodySchema.safeParse(json);
  if (parsed.success) {
    const { code, message, request_id } = parsed.data.error;
    return new ApiError(status, code, message, { ...details, requestId: request_id || details.requestId });
  }
  // A proxy or a crashed server answers without the contract's body: keep its status visible.
  const snippet = bodyText.trim().slice(0, 200);
  return new ApiError(status, 'bad_response', `the server answered ${status}${snippet ? `: ${snippet}` : ''}`, details);
}

export const isUnauthenticated = (error: unknown): boolean =>
  error instanceof ApiError && error.code === 'unauthenticated';
export const isNotFound = (error: unknown): boolean => error instanceof ApiError && error.code === 'not_found';
