import { ApiError, errorFromResponse, isNotFound, isUnauthenticated } from './errors';

describe('errorFromResponse', () => {
  it('reads the contract error body into code, message and request id', () => {
    const body = JSON.stringify({
      error: { code: 'conflict', message: 'the last owner cannot be removed', request_id: 'req-1' },
    });
    const error = errorFromResponse(409, body, { request: 'DELETE /svc/api/projects/p/members/u' });
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 409,
      code: 'conflict',
      message: 'the last owner cannot be removed',
      requestId: 'req-1',
      request: 'DELETE /svc/api/projects/p/members/u',
    });
  });

  it('keeps the X-Request-Id header when the body has none', () => {
    const body = JSON.stringify({ error: { code: 'internal', message: 'internal error', request_id: '' } });
    expect(errorFromResponse(500, body, { requestId: 'hdr-7' }).requestId).toBe('hdr-7');
  });

  it('turns a body that is not the contract shape into bad_response with the status and text', () => {
    const error = errorFromResponse(502, '<html>Bad Gateway</html>');
    expect(error).toMatchObject({ status: 502, code: 'bad_response', requestId: null });
    expect(error.message).toBe('the server answered 502: <html>Bad Gateway</html>');
  });

  it('refuses an unknown error code instead of trusting it', () => {
    const body = JSON.stringify({ error: { code: 'teapot', message: 'short and stout', request_id: 'r' } });
    expect(errorFromResponse(418, body).code).toBe('bad_response');
  });

  it('handles an empty body', () => {
    expect(errorFromResponse(503, '').message).toBe('the server answered 503');
  });
});

describe('error predicates', () => {
  it('recognise unauthenticated and not_found ApiErrors only', () => {
    expect(isUnauthenticated(new ApiError(401, 'unauthenticated', 'sign in'))).toBe(true);
    expect(isNotFound(new ApiError(404, 'not_found', 'gone'))).toBe(true);
    expect(isNotFound(new ApiError(401, 'unauthenticated', 'sign in'))).toBe(false);
    expect(isUnauthenticated(new Error('unauthenticated'))).toBe(false);
  });
});
