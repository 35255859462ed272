import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body as json } from '../support/fixtures';

describe.each(TEST_PROVIDERS)('sign-in and health on %s', (provider) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(provider);
  });
  afterAll(async () => server?.close());

  it('answers health without authentication', async () => {
    const res = await server.request('/svc/api/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', db: 'ok' });
  });

  it('reports the active provider', async () => {
    const res = await server.request('/svc/api/auth/provider');
    expect(await res.json()).toEqual({ provider: 'dev', login_url: '/svc/auth/login' });
  });

  it('signs in with the dev form, sets an HttpOnly session cookie and knows the user', async () => {
    const res = await server.request('/svc/auth/dev-login', {
      method: 'POST',
      body: 'login=Alice',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(303);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('svc_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const me = await server.request('/svc/api/me', { as: cookie.split(';')[0] });
    expect(await me.json()).toMatchObject({ login: 'alice', is_admin: false });
  });

  it('marks users listed in ADMIN_USERS as administrators', async () => {
    const me = await server.request('/svc/api/me', { as: await server.login('root') });
    expect(await me.json()).toMatchObject({ login: 'root', is_admin: true });
  });

  it('refuses requests without or with a bad credential using the error body', async () => {
    const anonymous = await server.request('/svc/api/me');
    expect(anonymous.status).toBe(401);
    const body = await json(anonymous);
    expect(body.error).toMatchObject({ code: 'unauthenticated' });
    expect(body.error.request_id).toBeTruthy();
    const forged = await server.request('/svc/api/me', { as: 'not.a.jwt' });
    expect(forged.status).toBe(401);
  });

  it('revokes the session on logout', async () => {
    const cookie = await server.login('bob');
    expect((await server.request('/svc/api/me', { as: cookie })).status).toBe(200);
    const out = await server.request('/svc/auth/logout', { method: 'POST', as: cookie });
    expect(out.status).toBe(204);
    const after = await server.request('/svc/api/me', { as: cookie });
    expect(after.status).toBe(401);
    expect((await json(after)).error.message).toMatch(/revoked/);
  });

  it('rejects malformed JSON, invalid UTF-8 and unknown fields without side effects', async () => {
    const broken = await server.request('/svc/auth/dev-login', {
      method: 'POST',
      body: '{"login":',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    expect((await json(broken)).error.code).toBe('invalid_input');
    const badUtf8 = await server.request('/svc/auth/dev-login', {
      method: 'POST',
      body: Buffer.from([0x7b, 0x22, 0x6c, 0x6f, 0x67, 0x69, 0x6e, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
      headers: { 'content-type': 'application/json' },
    });
    expect(badUtf8.status).toBe(400);
    const unknown = await server.request('/svc/auth/dev-login', { method: 'POST', json: { login: 'x', admin: true } });
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).error.message).toMatch(/body\.admin: unknown field/);
    await expect(server.deps.db.user.count({ where: { login: 'x' } })).resolves.toBe(0);
  });

  it('answers unknown API paths with not_found', async () => {
    const res = await server.request('/svc/api/nope');
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe('not_found');
  });
});

describe('malformed URLs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => server?.close());

  it('answers a broken percent-encoding in a route parameter with invalid_input, not a crash', async () => {
    const cookie = await server.login('carol');
    const res = await server.request('/svc/api/workflows/%E0%A4%A/plan', { as: cookie });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_input');
  });
});
