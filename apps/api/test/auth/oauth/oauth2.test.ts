import { createHash } from 'node:crypto';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { startOAuth2Provider, type OAuth2Provider, type ProviderEndpointName } from '../../support/oauth2-provider';
import { Browser, redirectTarget } from '../../support/browser';

interface ErrorBody {
  error: { code: string; message: string; request_id: string };
}

const ANN = {
  sub: 'oidc|ann',
  preferred_username: 'Ann.Example',
  name: 'Ann Example',
  email: 'ann@example.com',
  email_verified: true,
  picture: 'https://img.example/ann.png',
};

describe.each(TEST_PROVIDERS)('OAuth 2.0 sign-in against a real provider on %s', (dbProvider) => {
  let provider: OAuth2Provider;
  let server: TestServer;
  const count = (endpoint: ProviderEndpointName) => provider.requests.filter((r) => r.endpoint === endpoint).length;
  const users = () => server.deps.db.user.count();

  /** login -> provider authorize; returns the callback URL the provider sent the browser to. */
  async function authorize(browser: Browser): Promise<{ loginLocation: URL; callback: URL }> {
    const login = await browser.request(`${server.url}/svc/auth/login`);
    expect(login.status).toBe(302);
    const loginLocation = new URL(redirectTarget(`${server.url}/svc/auth/login`, login)!);
    const authorized = await browser.request(loginLocation.href);
    return { loginLocation, callback: new URL(redirectTarget(loginLocation.href, authorized)!) };
  }

  beforeAll(async () => {
    provider = await startOAuth2Provider();
    server = await startTestServer(dbProvider, { AUTH_PROVIDER: 'oauth2', WEB_APP_URL: '/app/', ...provider.env });
    // The provider must send the browser back to where this server really listens (a random port).
    server.deps.config.publicUrl = server.url;
  });
  afterAll(async () => {
    await server?.close();
    await provider?.close();
  });
  beforeEach(() => provider.configure({ userInfo: { statusCode: 200, body: ANN }, token: null }));

  it('reports oauth2 as the active provider', async () => {
    const res = await server.request('/svc/api/auth/provider');
    expect(await res.json()).toEqual({ provider: 'oauth2', login_url: '/svc/auth/login' });
  });

  it('signs in end to end: login, provider, callback, then the session cookie works on /svc/api/me', async () => {
    const browser = new Browser();
    const { loginLocation, callback } = await authorize(browser);
    expect(loginLocation.origin + loginLocation.pathname).toBe(`${provider.url}/authorize`);
    const params = Object.fromEntries(loginLocation.searchParams);
    expect(params).toMatchObject({
      client_id: 'svc-test-client',
      response_type: 'code',
      redirect_uri: `${server.url}/svc/auth/callback`,
      scope: 'openid profile email',
      code_challenge_method: 'S256',
    });
    expect(params.state).toMatch(/^[\w-]{43}$/);
    expect(params.code_challenge).toMatch(/^[\w-]{43}$/);
    expect(callback.origin + callback.pathname).toBe(`${server.url}/svc/auth/callback`);
    expect(callback.searchParams.get('state')).toBe(params.state);

    const finished = await browser.request(callback.href);
    expect(finished.status).toBe(303);
    expect(finished.headers.get('location')).toBe('/app/');
    expect(browser.cookie('svc_oauth_state')).toBeUndefined();
    expect(browser.cookie('svc_session')?.attributes).toMatch(/HttpOnly/i);

    const me = await browser.request(`${server.url}/svc/api/me`);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      login: 'ann.example',
      name: 'Ann Example',
      email: 'ann@example.com',
      avatar_url: 'https://img.example/ann.png',
      is_admin: false,
    });
    const stored = await server.deps.db.user.findFirstOrThrow({ where: { login: 'ann.example' } });
    expect(stored).toMatchObject({ provider: 'oauth2', provider_subject: 'oidc|ann' });
  });

  it('binds the state to a short-lived HttpOnly cookie limited to the callback path', async () => {
    const browser = new Browser();
    await browser.request(`${server.url}/svc/auth/login`);
    const cookie = browser.cookie('svc_oauth_state')!;
    expect(cookie.path).toBe('/svc/auth/callback');
    expect(cookie.attributes).toMatch(/HttpOnly/i);
    expect(cookie.attributes).toMatch(/SameSite=Lax/i);
    expect(cookie.attributes).toMatch(/Max-Age=600/i);
    expect(browser.cookieHeader(`${server.url}/svc/api/me`)).not.toContain('svc_oauth_state');
  });

  it('sends the PKCE verifier matching the S256 challenge, and the client credentials, to the token endpoint', async () => {
    const before = count('token');
    const browser = new Browser();
    const { loginLocation, callback } = await authorize(browser);
    expect((await browser.request(callback.href)).status).toBe(303);
    const tokenRequest = await provider.request('token', before + 1);
    const verifier = tokenRequest.body!.code_verifier!;
    expect(verifier).toMatch(/^[\w-]{43,128}$/);
    expect(createHash('sha256').update(verifier).digest('base64url')).toBe(
      loginLocation.searchParams.get('code_challenge'),
    );
    expect(tokenRequest.body).toMatchObject({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code'),
      redirect_uri: `${server.url}/svc/auth/callback`,
      client_id: 'svc-test-client',
      client_secret: 'svc-test-secret',
    });
    const userInfoRequest = await provider.request('userinfo', count('userinfo'));
    expect(userInfoRequest.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('keeps one user per provider subject, refreshing the profile, and suffixes a taken login', async () => {
    const again = { ...ANN, name: 'Ann Renamed' };
    await provider.configure({ userInfo: { statusCode: 200, body: again } });
    const browser = new Browser();
    const { callback } = await authorize(browser);
    await browser.request(callback.href);
    expect(await server.deps.db.user.count({ where: { provider_subject: 'oidc|ann' } })).toBe(1);
    expect(await (await browser.request(`${server.url}/svc/api/me`)).json()).toMatchObject({
      login: 'ann.example',
      name: 'Ann Renamed',
    });

    await provider.configure({
      userInfo: {
        statusCode: 200,
        body: {
          sub: 'oidc|other-ann',
          preferred_username: 'ann.example',
          email: 'x@example.com',
          email_verified: false,
        },
      },
    });
    const other = new Browser();
    await other.request((await authorize(other)).callback.href);
    expect(await (await other.request(`${server.url}/svc/api/me`)).json()).toMatchObject({
      login: 'ann.example-2',
      email: null,
    });
  });

  it('rejects a tampered state with 400 and stores nothing', async () => {
    const [usersBefore, tokensBefore] = [await users(), count('token')];
    const browser = new Browser();
    const { callback } = await authorize(browser);
    callback.searchParams.set('state', 'A'.repeat(43));
    const res = await browser.request(callback.href);
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/state does not match/) });
    expect(body.error.request_id).toBeTruthy();
    expect(browser.cookie('svc_session')).toBeUndefined();
    expect(await users()).toBe(usersBefore);
    expect(count('token')).toBe(tokensBefore);
  });

  it('rejects a missing state, a missing or forged cookie, a superseded login and a replayed callback', async () => {
    const usersBefore = await users();
    const browser = new Browser();
    const { callback } = await authorize(browser);
    const withoutState = new URL(callback);
    withoutState.searchParams.delete('state');
    expect((await browser.request(withoutState.href)).status).toBe(400);

    const fresh = await authorize(browser); // a second login replaces the first one's cookie
    const otherBrowser = new Browser();
    const noCookie = await otherBrowser.request(fresh.callback.href);
    expect(noCookie.status).toBe(400);
    expect(((await noCookie.json()) as ErrorBody).error.message).toMatch(/cookie is missing/);
    expect((await browser.request(callback.href)).status).toBe(400); // the superseded login's callback

    const forged = await authorize(otherBrowser);
    otherBrowser.setCookie(server.url, 'svc_oauth_state', 'eyJhbGciOiJub25lIn0.eyJzdCI6IngifQ.', '/svc/auth/callback');
    expect((await otherBrowser.request(forged.callback.href)).status).toBe(400);
    // A genuine server-signed session JWT is no state cookie (distinct type and audience).
    const { token: sessionJwt } = await server.deps.tokens.issue({ sub: 'someone', scope: 'session' });
    const swapped = await authorize(otherBrowser);
    otherBrowser.setCookie(server.url, 'svc_oauth_state', sessionJwt, '/svc/auth/callback');
    expect((await otherBrowser.request(swapped.callback.href)).status).toBe(400);

    expect(await users()).toBe(usersBefore);

    const good = await authorize(browser);
    expect((await browser.request(good.callback.href)).status).toBe(303);
    expect((await browser.request(good.callback.href)).status).toBe(400); // state cookie is single use
  });

  it('answers a provider refusal (error=access_denied) with 401 and creates no user', async () => {
    const usersBefore = await users();
    const browser = new Browser();
    const { loginLocation } = await authorize(browser);
    const denied = `${server.url}/svc/auth/callback?error=access_denied&error_description=no&state=${loginLocation.searchParams.get('state')}`;
    const res = await browser.request(denied);
    expect(res.status).toBe(401);
    expect(((await res.json()) as ErrorBody).error).toMatchObject({
      code: 'unauthenticated',
      message: expect.stringMatching(/access_denied/),
    });
    expect(await users()).toBe(usersBefore);
  });

  it.each([
    ['a refusal', 400, { error: 'invalid_grant' }, 401, 'unauthenticated', /token endpoint refused.*invalid_grant/],
    ['a server error', 500, { error: 'server_error' }, 503, 'unavailable', /token endpoint answered HTTP 500/],
    ['no access token', 200, { token_type: 'Bearer' }, 503, 'unavailable', /without an access_token/],
  ])(
    'maps a token endpoint answer with %s (HTTP %i) to an error and creates no user',
    async (_label, statusCode, tokenBody, status, code, message) => {
      const usersBefore = await users();
      await provider.configure({ token: { statusCode, body: tokenBody } });
      const browser = new Browser();
      const res = await browser.request((await authorize(browser)).callback.href);
      expect(res.status).toBe(status);
      expect(((await res.json()) as ErrorBody).error).toMatchObject({ code, message: expect.stringMatching(message) });
      expect(browser.cookie('svc_session')).toBeUndefined();
      expect(await users()).toBe(usersBefore);
    },
  );

  it.each([
    ['a server error', 500, { error: 'boom' }, 503, /user info endpoint answered HTTP 500/],
    ['a refusal', 401, { error: 'invalid_token' }, 401, /user info endpoint refused.*invalid_token/],
    ['no subject', 200, { name: 'nobody' }, 503, /without a user id/],
  ])(
    'maps a user info answer with %s (HTTP %i) to an error and creates no user',
    async (_label, statusCode, userInfoBody, status, message) => {
      const usersBefore = await users();
      await provider.configure({ userInfo: { statusCode, body: userInfoBody } });
      const browser = new Browser();
      const res = await browser.request((await authorize(browser)).callback.href);
      expect(res.status).toBe(status);
      expect(((await res.json()) as ErrorBody).error.message).toMatch(message);
      expect(browser.cookie('svc_session')).toBeUndefined();
      expect(await users()).toBe(usersBefore);
    },
  );

  it('lets a browser with an expired or revoked session cookie sign in again', async () => {
    const browser = new Browser();
    await browser.request((await authorize(browser)).callback.href);
    const session = browser.cookie('svc_session')!.value;
    expect((await browser.request(`${server.url}/svc/auth/logout`, { method: 'POST' })).status).toBe(204);
    browser.setCookie(server.url, 'svc_session', session); // the old, now revoked, token
    const me = await browser.request(`${server.url}/svc/api/me`);
    expect(me.status).toBe(401);
    expect(((await me.json()) as ErrorBody).error.message).toMatch(/revoked/);
    expect((await browser.request(`${server.url}/svc/api/auth/provider`)).status).toBe(200);
    const hops = await browser.follow(`${server.url}/svc/auth/login`);
    expect(hops.at(-1)!.url).toBe(`${server.url}/app/`);
    expect(hops.at(-2)!.response.status).toBe(303);
    expect((await browser.request(`${server.url}/svc/api/me`)).status).toBe(200);
  });
});
