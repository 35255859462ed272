import { z } from 'zod';
import { ApiError, apiUrl, errorFromResponse, errorMessage, parseBody } from './api';
import { shouldRetry } from './query-client';

describe('errorFromResponse', () => {
  it('reads the contract error body into code, message and request id', () => {
    const body = JSON.stringify({
      error: { code: 'conflict', message: 'the last owner cannot be removed', request_id: 'req-1' },
    });
    const error = errorFromResponse(409, body);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 409,
      code: 'conflict',
      message: 'the last owner cannot be removed',
      requestId: 'req-1',
    });
  });

  it('keeps the X-Request-Id header when the body has none', () => {
    const body = JSON.stringify({ error: { code: 'internal', message: 'internal error', request_id: '' } });
    expect(errorFromResponse(500, body, 'hdr-7').requestId).toBe('hdr-7');
  });

  it('turns a body that is not the contract shape into bad_response with the status and text', () => {
    const error = errorFromResponse(502, '<html>Bad Gateway</html>');
    expect(error).toMatchObject({ status: 502, code: 'bad_response' });
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

describe('parseBody', () => {
  const Schema = z.object({ id: z.string(), count: z.int() });

  it('returns the validated body', () => {
    expect(parseBody(Schema, { id: 'a', count: 2 }, 200, '/x')).toEqual({ id: 'a', count: 2 });
  });

  it('throws bad_response naming the field that does not fit', () => {
    expect(() => parseBody(Schema, { id: 'a', count: 'two' }, 200, '/projects')).toThrow(
      expect.objectContaining({
        code: 'bad_response',
        message: expect.stringMatching(/^unexpected answer from \/projects: count: /),
      }),
    );
  });
});

describe('apiUrl', () => {
  it('prefixes /svc/api and encodes the query, leaving out undefined values', () => {
    expect(apiUrl('/kb/search', { q: 'port & host', k: 5, cursor: undefined })).toBe(
      '/svc/api/kb/search?q=port+%26+host&k=5',
    );
  });

  it('keeps paths already under /svc (auth endpoints)', () => {
    expect(apiUrl('/svc/auth/logout')).toBe('/svc/auth/logout');
  });
});

describe('errorMessage and retries', () => {
  it('shows the API message, an Error message, or the value', () => {
    expect(errorMessage(new ApiError(404, 'not_found', 'project not found'))).toBe('project not found');
    expect(errorMessage(new TypeError('boom'))).toBe('boom');
    expect(errorMessage('plain')).toBe('plain');
  });

  it('retries network failures and 5xx at most twice, never 4xx', () => {
    expect(shouldRetry(0, new ApiError(0, 'network_error', 'down'))).toBe(true);
    expect(shouldRetry(1, new ApiError(503, 'unavailable', 'later'))).toBe(true);
    expect(shouldRetry(2, new ApiError(503, 'unavailable', 'later'))).toBe(false);
    expect(shouldRetry(0, new ApiError(404, 'not_found', 'gone'))).toBe(false);
    expect(shouldRetry(0, new ApiError(401, 'unauthenticated', 'sign in'))).toBe(false);
  });
});
