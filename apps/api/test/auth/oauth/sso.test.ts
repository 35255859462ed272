import { createHash } from 'node:crypto';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { startSsoProvider, type SsoProvider } from '../../support/sso-provider';
import { Browser, redirectTarget } from '../../support/browser';

interface ErrorBody {
  error: { code: string; message: string };
}

describe.each(TEST_PROVIDERS)('short-video platform SSO sign-in on %s', (dbProvider) => {
  let sso: SsoProvider;
  let server: TestServer;
  const users = () => server.deps.db.user.count();
  const lastRequest = (path: string) => sso.requests.filter((r) => r.path === path).at(-1)!;

  /** Runs login -> authorize -> callback in a fresh browser; returns the browser and the callback response. */
  async function signIn() {
    const browser = new Browser();
    const hops = await browser.follow(`${server.url}/svc/auth/login`);
    return { browser, hops, callback: hops.find((h) => h.url.startsWith(`${server.url}/svc/auth/callback`))!.response };
  }

  beforeAll(async () => {
    sso = await startSsoProvider();
    server = await startTestServer(dbProvider, {
      AUTH_PROVIDER: 'sso',
      SSO_SCOPES: 'user_info,video.list',
      ...sso.env,
    });
    server.deps.config.publicUrl = server.url; // the callback the provider redirects to
  });
  afterAll(async () => {
    await server?.close();
    await sso?.close();
  });
  beforeEach(() => {
    sso.nextUser = {
      open_id: 'open-lin',
      union_id: 'union-lin',
      nickname: 'Lin',
      avatar: 'https://p.sso.example/lin.jpeg',
    };
  });

  it('reports sso as the active provider', async () => {
    expect(await (await server.request('/svc/api/auth/provider')).json()).toEqual({
      provider: 'sso',
      login_url: '/svc/auth/login',
    });
  });

  it('names the client client_key in the authorize request, with state, PKCE and comma-separated scopes', async () => {
    const browser = new Browser();
    const login = await browser.request(`${server.url}/svc/auth/login`);
    const location = new URL(redirectTarget(`${server.url}/svc/auth/login`, login)!);
    expect(location.origin + location.pathname).toBe(`${sso.url}/platform/oauth/connect/`);
    expect(location.searchParams.get('client_key')).toBe(sso.clientKey);
    expect(location.searchParams.has('client_id')).toBe(false);
    expect(location.searchParams.get('scope')).toBe('user_info,video.list');
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('state')).toMatch(/^[\w-]{43}$/);
  });

  it('signs in end to end and creates the user from open_id, nickname and avatar', async () => {
    const { browser, callback, hops } = await signIn();
    expect(callback.status).toBe(303);
    expect(hops.at(-1)!.url).toBe(`${server.url}/`);
    const me = await browser.request(`${server.url}/svc/api/me`);
    expect(await me.json()).toMatchObject({
      login: 'lin',
      name: 'Lin',
      email: null,
      avatar_url: 'https://p.sso.example/lin.jpeg',
      is_admin: false,
    });
    const user = await server.deps.db.user.findFirstOrThrow({
      where: { provider: 'sso', provider_subject: 'open-lin' },
    });
    expect(user.login).toBe('lin');

    const token = lastRequest('/oauth/access_token/').params;
    expect(token).toMatchObject({
      client_key: sso.clientKey,
      client_secret: sso.clientSecret,
      grant_type: 'authorization_code',
    });
    expect(token).not.toHaveProperty('client_id');
    const authorize = lastRequest('/platform/oauth/connect/').params;
    expect(createHash('sha256').update(token.code_verifier!).digest('base64url')).toBe(authorize.code_challenge);
    expect(lastRequest('/oauth/userinfo/').params).toMatchObject({
      open_id: 'open-lin',
      access_token: expect.stringMatching(/^act\./),
    });
  });

  it('gives a nickname without Latin letters a stable login derived from open_id', async () => {
    sso.nextUser = {
      open_id: 'open-xiao',
      union_id: 'union-xiao',
      nickname: '小明',
      avatar: 'https://p.sso.example/x.jpeg',
    };
    const first = await signIn();
    const login = ((await (await first.browser.request(`${server.url}/svc/api/me`)).json()) as { login: string }).login;
    expect(login).toMatch(/^sso-[0-9a-f]{8}$/);
    const again = await signIn();
    expect(await (await again.browser.request(`${server.url}/svc/api/me`)).json()).toMatchObject({
      login,
      name: '小明',
    });
    expect(await server.deps.db.user.count({ where: { provider_subject: 'open-xiao' } })).toBe(1);
  });

  it.each([
    [
      'token',
      'an error_code',
      200,
      { data: { error_code: 10007, description: 'code is invalid or used' }, message: 'error' },
      401,
      /token endpoint refused.*error_code 10007/,
    ],
    ['token', 'HTTP 502', 502, { message: 'bad gateway' }, 503, /token endpoint answered HTTP 502/],
    [
      'token',
      'no open_id',
      200,
      { data: { access_token: 'act.x', error_code: 0 }, message: 'success' },
      503,
      /without an open_id/,
    ],
    [
      'userinfo',
      'an error_code',
      200,
      { data: { error_code: 2190008, description: 'access_token is invalid' }, message: 'error' },
      401,
      /user info endpoint refused.*2190008/,
    ],
    [
      'userinfo',
      'another account',
      200,
      { data: { open_id: 'someone-else', nickname: 'Eve', error_code: 0 }, message: 'success' },
      401,
      /open_id differs/,
    ],
    ['userinfo', 'HTTP 500', 500, 'oops', 503, /user info endpoint answered HTTP 500/],
  ] as const)(
    'maps a %s answer with %s (HTTP %i) to an error and creates no user',
    async (endpoint, _label, status, body, expected, message) => {
      const before = await users();
      sso.failNext(endpoint, status, body);
      const { browser, callback } = await signIn();
      expect(callback.status).toBe(expected);
      expect(((await callback.json()) as ErrorBody).error.message).toMatch(message);
      expect(browser.cookie('svc_session')).toBeUndefined();
      expect(await users()).toBe(before);
    },
  );

  it('rejects a callback whose state was tampered with, before calling the token endpoint', async () => {
    const tokenCalls = sso.requests.filter((r) => r.path === '/oauth/access_token/').length;
    const browser = new Browser();
    const login = await browser.request(`${server.url}/svc/auth/login`);
    const authorized = await browser.request(redirectTarget(`${server.url}/svc/auth/login`, login)!);
    const callback = new URL(redirectTarget(sso.url, authorized)!);
    callback.searchParams.set('state', `${callback.searchParams.get('state')}x`);
    const res = await browser.request(callback.href);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.code).toBe('invalid_input');
    expect(sso.requests.filter((r) => r.path === '/oauth/access_token/').length).toBe(tokenCalls);
  });
});

describe.each(TEST_PROVIDERS)('SSO sign-in with OAUTH_PKCE=false on %s', (dbProvider) => {
  let sso: SsoProvider;
  let server: TestServer;
  beforeAll(async () => {
    sso = await startSsoProvider();
    server = await startTestServer(dbProvider, { AUTH_PROVIDER: 'sso', OAUTH_PKCE: 'false', ...sso.env });
    server.deps.config.publicUrl = server.url;
  });
  afterAll(async () => {
    await server?.close();
    await sso?.close();
  });

  it('sends neither challenge nor verifier, still checks the state, and signs in', async () => {
    const browser = new Browser();
    const hops = await browser.follow(`${server.url}/svc/auth/login`);
    const authorize = new URL(hops[1]!.url);
    expect(authorize.searchParams.has('code_challenge')).toBe(false);
    expect(authorize.searchParams.get('state')).toMatch(/^[\w-]{43}$/);
    expect(sso.requests.find((r) => r.path === '/oauth/access_token/')!.params).not.toHaveProperty('code_verifier');
    expect(hops.at(-2)!.response.status).toBe(303);
    expect(await (await browser.request(`${server.url}/svc/api/me`)).json()).toMatchObject({ login: 'lin' });

    const tampered = new Browser();
    const login = await tampered.request(`${server.url}/svc/auth/login`);
    const callback = new URL(redirectTarget(sso.url, await tampered.request(redirectTarget(server.url, login)!))!);
    callback.searchParams.set('state', 'forged');
    expect((await tampered.request(callback.href)).status).toBe(400);
  });
});
