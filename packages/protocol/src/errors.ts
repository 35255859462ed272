import { z } from 'zod';

/** Every error code the API can answer with (CONTRACT section 1). */
export const ERROR_CODES = [
  'invalid_input',
  'invalid_path',
  'unauthenticated',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal',
  'unavailable',
  'request_timeout',
] as const;

export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** The one code -> HTTP status table. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_input: 400,
  invalid_path: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  request_timeout: 408,
};

/** Error body of every failed REST call. */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: ErrorCodeSchema,
    message: z.string(),
    request_id: z.string(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Error as carried inside WebSocket messages (no request id there). */
export const WsErrorInfoSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
});
export type WsErrorInfo = z.infer<typeof WsErrorInfoSchema>;
