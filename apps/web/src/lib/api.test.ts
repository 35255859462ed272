import { ApiError, apiUrl, errorMessage } from './api';
import { shouldRetry } from './query-client';

// The client itself (errors, schemas, encoding) is tested in @svc/client; these are the web app's own rules.
describe('apiUrl', () => {
  it('prefixes /svc/api and encodes the query, leaving out undefined values', () => {
    expect(apiUrl('/kb/search', { q: 'port & host', k: 5, cursor: undefined })).toBe(
      '/svc/api/kb/search?q=port%20%26%20host&k=5',
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
