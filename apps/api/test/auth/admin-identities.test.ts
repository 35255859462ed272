import { configFromEnv, ConfigError } from '../../src/config';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { startSsoProvider, type SsoProvider, type SsoUser } from '../support/sso-provider';
import { startOAuth2Provider, type OAuth2Provider } from '../support/oauth2-provider';
import { Browser } from '../support/browser';

interface Me {
  login: string;
  is_admin: boolean;
}

/** Signs in end to end through the provider in a fresh browser; returns `/me` of the new session. */
async function signInThroughProvider(server: TestServer): Promise<Me> {
  const browser = new Browser();
  const hops = await browser.follow(`${server.url}/svc/auth/login`);
  const callback = hops.find((h) => h.url.startsWith(`${server.url}/svc/auth/callback`))!.response;
  if (callback.status !== 303) throw new Error(`sign-in failed: ${callback.status} ${await callback.text()}`);
  return (await (await browser.request(`${server.url}/svc/api/me`)).json()) as Me;
}

describe.each(TEST_PROVIDERS)('administrators by stable identity, SSO sign-in on %s', (dbProvider) => {
  let sso: SsoProvider;
  let server: TestServer;
  const as = async (user: Partial<SsoUser> & { open_id: string }) => {
    sso.nextUser = { union_id: `u-${user.open_id}`, nickname: '', avatar: 'https://p.sso.example/a.jpeg', ...user };
    return signInThroughProvider(server);
  };

  beforeAll(async () => {
    sso = await startSsoProvider();
    // `admin` is the dev-login form run.sh uses; `sso:open-boss` names one SSO identity.
    server = await startTestServer(dbProvider, {
      AUTH_PROVIDER: 'sso',
      ADMIN_USERS: 'admin,sso:open-boss',
      ...sso.env,
    });
    server.deps.config.publicUrl = server.url;
  });
  afterAll(async () => {
    await server?.close();
    await sso?.close();
  });

  it('does not make a full-width "Ａｄｍｉｎ" nickname an administrator, nor give it the login admin', async () => {
    const me = await as({ open_id: 'open-mallory', nickname: 'Ａｄｍｉｎ' });
    expect(me.is_admin).toBe(false);
    expect(me.login).not.toBe('admin');
    expect(me.login).toBe('admin-2');
  });

  it('does not make a plain "admin" nickname an administrator while nobody holds that login', async () => {
    await expect(server.deps.db.user.count({ where: { login: 'admin' } })).resolves.toBe(0);
    const me = await as({ open_id: 'open-trent', nickname: 'admin' });
    expect(me).toMatchObject({ is_admin: false });
    expect(me.login).toMatch(/^admin-\d+$/);
    await expect(server.deps.db.user.count({ where: { login: 'admin' } })).resolves.toBe(0);
  });

  it('matches the listed SSO identity (provider + open_id) whatever its nickname', async () => {
    const me = await as({ open_id: 'open-boss', nickname: 'Plain Person' });
    expect(me).toEqual(expect.objectContaining({ login: 'plain-person', is_admin: true }));
  });

  it('never folds a nickname onto a taken login (compared after NFKC + case fold)', async () => {
    await as({ open_id: 'open-lin', nickname: 'Lin' });
    const twin = await as({ open_id: 'open-lin-twin', nickname: 'ＬＩＮ' });
    expect(twin).toEqual({ ...twin, login: 'lin-2', is_admin: false });
  });
});

describe.each(TEST_PROVIDERS)('administrators by stable identity, OAuth 2.0 sign-in on %s', (dbProvider) => {
  let provider: OAuth2Provider;
  let server: TestServer;
  const as = async (userInfo: Record<string, unknown>) => {
    await provider.configure({ userInfo: { statusCode: 200, body: userInfo }, token: null });
    return signInThroughProvider(server);
  };

  beforeAll(async () => {
    provider = await startOAuth2Provider();
    server = await startTestServer(dbProvider, {
      AUTH_PROVIDER: 'oauth2',
      ADMIN_USERS: 'root, email:Ops@Example.com, oauth2:oidc|chief',
      ...provider.env,
    });
    server.deps.config.publicUrl = server.url;
  });
  afterAll(async () => {
    await server?.close();
    await provider?.close();
  });

  it('matches a listed oauth2 subject', async () => {
    expect(await as({ sub: 'oidc|chief', preferred_username: 'chief' })).toMatchObject({ is_admin: true });
  });

  it('matches a listed e-mail only when the provider asserts it verified (compared folded)', async () => {
    const unverified = await as({ sub: 'oidc|x1', preferred_username: 'x1', email: 'ops@example.com' });
    expect(unverified.is_admin).toBe(false);
    const denied = await as({
      sub: 'oidc|x2',
      preferred_username: 'x2',
      email: 'ops@example.com',
      email_verified: false,
    });
    expect(denied.is_admin).toBe(false);
    const verified = await as({
      sub: 'oidc|ops',
      preferred_username: 'ops',
      email: 'OPS@example.com',
      email_verified: true,
    });
    expect(verified.is_admin).toBe(true);
  });

  it('does not treat a chosen username that folds to a listed dev login as an administrator', async () => {
    for (const [sub, name] of [
      ['oidc|r1', 'root'],
      ['oidc|r2', 'ＲＯＯＴ'],
    ] as const) {
      const me = await as({ sub, preferred_username: name });
      expect(me.is_admin).toBe(false);
      expect(me.login).toMatch(/^root-\d+$/);
    }
  });
});

describe.each(TEST_PROVIDERS)('administrators with the dev provider on %s', (dbProvider) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dbProvider, { ADMIN_USERS: 'admin' });
  });
  afterAll(async () => server?.close());

  it('keeps run.sh working: the dev login admin is an administrator, others are not', async () => {
    const me = async (login: string) =>
      (await (await server.request('/svc/api/me', { as: await server.login(login) })).json()) as Me;
    expect(await me('admin')).toMatchObject({ login: 'admin', is_admin: true });
    expect(await me('alice')).toMatchObject({ login: 'alice', is_admin: false });
  });
});

describe('ADMIN_USERS parsing', () => {
  it.each(['github:someone', 'email:', 'sso:', 'email:not-an-address'])('refuses %j at start-up', (entry) => {
    expect(() => configFromEnv({ ADMIN_USERS: entry })).toThrow(ConfigError);
  });

  it('reads every documented form', () => {
    const admins = configFromEnv({
      ADMIN_USERS: 'admin, dev:Ｒｏｏｔ, sso:Open-ID, oauth2:a|b, email:A@B.c, x@y.z',
    }).adminUsers;
    expect(admins.has({ provider: 'dev', provider_subject: 'admin', email: null })).toBe(true);
    expect(admins.has({ provider: 'dev', provider_subject: 'root', email: null })).toBe(true);
    expect(admins.has({ provider: 'sso', provider_subject: 'Open-ID', email: null })).toBe(true);
    expect(admins.has({ provider: 'sso', provider_subject: 'open-id', email: null })).toBe(false); // subjects are exact
    expect(admins.has({ provider: 'sso', provider_subject: 'admin', email: null })).toBe(false);
    expect(admins.has({ provider: 'oauth2', provider_subject: 'a|b', email: null })).toBe(true);
    expect(admins.has({ provider: 'oauth2', provider_subject: 'z', email: 'a@b.C' })).toBe(true);
    expect(admins.has({ provider: 'oauth2', provider_subject: 'z', email: 'X@Y.Z' })).toBe(true);
  });
});
