import { startTestServer, type TestServer } from '../support/server';

/** Without METRICS_TOKEN the bearer route does not exist: 404 with the contract's body, token or not. */
describe('GET /metrics without METRICS_TOKEN', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(() => server.close());

  it('is 404 with the contract error body', async () => {
    for (const headers of [{}, { authorization: 'Bearer anything-at-all-0123456789' }] as Record<string, string>[]) {
      const res = await fetch(`${server.url}/metrics`, { headers });
      expect(res.status).toBe(404);
      const text = await res.text();
      expect(text).not.toContain('svc_');
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'not_found' } });
    }
  });
});
