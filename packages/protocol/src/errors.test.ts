import { ERROR_CODES, ERROR_STATUS, ErrorBodySchema, ErrorCodeSchema } from './errors';

describe('error codes', () => {
  it('maps every code to the status of CONTRACT section 1', () => {
    expect(ERROR_STATUS).toEqual({
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
    });
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('rejects a code outside the list', () => {
    expect(ErrorCodeSchema.safeParse('teapot').success).toBe(false);
  });

  it('accepts the error body and rejects one without request_id', () => {
    const body = { error: { code: 'not_found', message: 'no such workflow', request_id: 'req-1' } };
    expect(ErrorBodySchema.parse(body)).toEqual(body);
    expect(ErrorBodySchema.safeParse({ error: { code: 'not_found', message: 'x' } }).success).toBe(false);
  });
});
