import { createHash } from 'node:crypto';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { startOAuth2Provider, type OAuth2Provider } from '../../support/oauth2-provider';
import { startSsoProvider, type SsoProvider } from '../../support/sso-provider';
import { Browser } from '../../support/browser';
import { body, createProject } from '../../support/fixtures';

/** Issue 21, finding 4: an invitation goes to whoever proves what it names, never to whoever takes a login. */

interface Listed {
  login: string;
  role: string;
  invited_by: string | null;
}

/** What an invitee, a stranger and the owner can see and do with a project's invitations. */
function invitationHelpers(server: () => TestServer) {
  const invitationsOf = async (as: string) =>
    body<{ project_id: string; role: string; invited_by: string }[]>(
      await server().request('/svc/api/invitations', { as }),
    );
  const accept = (projectId: string, as: string) =>
    server().request(`/svc/api/invitations/${projectId}/accept`, { method: 'POST', as });
  const invite = (projectId: string, login: string, role: string, as: string) =>
    server().request(`/svc/api/projects/${projectId}/members`, { method: 'POST', as, json: { login, role } });
  const members = async (projectId: string, as: string) =>
    (
      await body<{ login: string; role: string }[]>(
        await server().request(`/svc/api/projects/${projectId}/members`, { as }),
      )
    ).map((m) => `${m.login}:${m.role}`);
  const outstanding = async (projectId: string, as: string) =>
    (await body<Listed[]>(await server().request(`/svc/api/projects/${projectId}/pending-invitations`, { as }))).map(
      (p) => `${p.login}:${p.role}`,
    );
  return { invitationsOf, accept, invite, members, outstanding };
}

const OLGA = { sub: 'oidc|olga', preferred_username: 'olga', email: 'olga@example.com', email_verified: true };
/** Mallory picks bob's nickname and claims his address, which her provider does not verify. */
const MALLORY = { sub: 'oidc|mallory', preferred_username: 'bob', email: 'bob@example.com', email_verified: false };
const BOB = { sub: 'oidc|Bob', preferred_username: 'bob', email: 'Bob@Example.com', email_verified: true };

describe.each(TEST_PROVIDERS)(
  'invitations bound to what the invitee proves, OAuth 2.0 sign-in, on %s',
  (dbProvider) => {
    let provider: OAuth2Provider;
    let server: TestServer;
    let olga: string;
    let mallory: string;
    const { invitationsOf, accept, invite, members, outstanding } = invitationHelpers(() => server);

    /** A real sign-in through the provider as `userInfo`; the session cookie. */
    async function signIn(userInfo: object): Promise<string> {
      await provider.configure({ userInfo: { statusCode: 200, body: userInfo }, token: null });
      const browser = new Browser();
      await browser.follow(`${server.url}/svc/auth/login`);
      const cookie = browser.cookie('svc_session');
      if (!cookie) throw new Error('the sign-in set no session cookie');
      return `svc_session=${cookie.value}`;
    }
    const loginOf = async (as: string) =>
      (await body<{ login: string }>(await server.request('/svc/api/me', { as }))).login;

    beforeAll(async () => {
      provider = await startOAuth2Provider();
      server = await startTestServer(dbProvider, {
        AUTH_PROVIDER: 'oauth2',
        ADMIN_USERS: 'nobody@example.com',
        ...provider.env,
      });
      server.deps.config.publicUrl = server.url;
      olga = await signIn(OLGA);
    });
    afterAll(async () => {
      await server?.close();
      await provider?.close();
    });

    it('hands an invitation of an unused login to nobody who merely signs in with that nickname first', async () => {
      const { id } = await createProject(server, olga, 'Takeover');
      expect((await invite(id, 'bob', 'owner', olga)).status).toBe(202);
      mallory = await signIn(MALLORY);
      expect(await loginOf(mallory)).toBe('bob');

      expect(await invitationsOf(mallory)).toEqual([]);
      const taken = await accept(id, mallory);
      expect(taken.status).toBe(404);
      expect((await body(taken)).error).toMatchObject({ code: 'not_found', request_id: expect.any(String) });
      expect((await server.request(`/svc/api/invitations/${id}`, { method: 'DELETE', as: mallory })).status).toBe(404);
      expect((await server.request(`/svc/api/projects/${id}`, { as: mallory })).status).toBe(404);
      expect(await members(id, olga)).toEqual(['olga:owner']);
      expect(await outstanding(id, olga)).toEqual(['bob:owner']);
    });

    it('hands an invitation by e-mail only to an account whose provider verified that address', async () => {
      const { id } = await createProject(server, olga, 'By e-mail');
      const res = await invite(id, 'email:BOB@example.com', 'owner', olga);
      expect(res.status).toBe(202);
      expect(await body(res)).toEqual({
        pending: true,
        login: 'email:bob@example.com',
        role: 'owner',
        invited_by: 'olga',
        created_at: expect.any(String),
      });
      mallory ??= await signIn(MALLORY);
      expect(await invitationsOf(mallory)).toEqual([]);
      expect((await accept(id, mallory)).status).toBe(404);

      const bob = await signIn(BOB);
      expect(await loginOf(bob)).toBe('bob-2'); // mallory holds `bob`: the login proves nothing either way
      expect(await invitationsOf(bob)).toEqual([
        expect.objectContaining({ project_id: id, role: 'owner', invited_by: 'olga' }),
      ]);
      expect((await accept(id, bob)).status).toBe(201);
      expect(await members(id, olga)).toEqual(['olga:owner', 'bob-2:owner']);
      expect(await outstanding(id, olga)).toEqual([]);
      expect((await accept(id, mallory)).status).toBe(404);
    });

    it('hands an invitation by provider identity only to that account, the subject compared exactly', async () => {
      const { id } = await createProject(server, olga, 'By identity');
      expect((await invite(id, 'oauth2:oidc|Bob', 'member', olga)).status).toBe(202);
      mallory ??= await signIn(MALLORY);
      expect(await invitationsOf(mallory)).toEqual([]);
      expect((await accept(id, mallory)).status).toBe(404);
      await signIn({ ...BOB, sub: 'oidc|bob', preferred_username: 'bobby', email_verified: false }); // another subject
      const bob = await signIn(BOB);
      expect((await invitationsOf(bob)).map((i) => i.project_id)).toContain(id);
      expect((await accept(id, bob)).status).toBe(201);
      expect(await members(id, olga)).toEqual(['olga:owner', 'bob-2:member']);
    });

    it('answers an identity invitation the same whether or not anyone has it, and refuses malformed ones', async () => {
      const { id } = await createProject(server, olga, 'Oracle');
      const known = await body<Record<string, unknown>>(await invite(id, 'email:olga@example.com', 'member', olga));
      const unknown = await body<Record<string, unknown>>(await invite(id, 'email:nobody@example.com', 'member', olga));
      const shape = ({ login: _l, created_at: c, ...rest }: Record<string, unknown>) => ({ ...rest, c: typeof c });
      expect(shape(known)).toEqual(shape(unknown));
      const before = await outstanding(id, olga);
      for (const login of ['email:', 'email:no-at-sign', 'oauth2:', 'sso:  ', 'link:abc']) {
        const res = await invite(id, login, 'member', olga);
        expect(res.status).toBe(400);
        expect((await body(res)).error).toMatchObject({ code: 'invalid_input', request_id: expect.any(String) });
      }
      expect(await outstanding(id, olga)).toEqual(before);
    });

    it('lets an invitation link be used once, by whoever holds it, before it expires', async () => {
      const { id } = await createProject(server, olga, 'By link');
      const made = await server.request(`/svc/api/projects/${id}/invitation-links`, {
        method: 'POST',
        as: olga,
        json: { role: 'member' },
      });
      expect(made.status).toBe(201);
      const link = await body<{ login: string; token: string; expires_at: string; role: string }>(made);
      expect(link).toMatchObject({
        pending: true,
        role: 'member',
        invited_by: 'olga',
        login: expect.stringMatching(/^link:[0-9a-f]{16}$/),
      });
      expect(link.token).toMatch(/^[\w-]{43}$/);
      // Only the hash is kept.
      const stored = await server.deps.db.pendingInvitation.findFirstOrThrow({ where: { project_id: id } });
      expect(stored.token_hash).toBe(createHash('sha256').update(link.token).digest('hex'));
      expect(JSON.stringify(stored)).not.toContain(link.token);
      expect(await outstanding(id, olga)).toEqual([`${link.login}:member`]);

      const useLink = (token: unknown, as: string) =>
        server.request('/svc/api/invitations/accept-link', { method: 'POST', as, json: { token } });
      mallory ??= await signIn(MALLORY);
      expect(await invitationsOf(mallory)).toEqual([]); // a link is listed to nobody
      for (const bad of [undefined, '', 42]) {
        const res = await useLink(bad, mallory);
        expect(res.status).toBe(400);
        expect((await body(res)).error.code).toBe('invalid_input');
      }
      expect((await useLink(`${link.token}x`, mallory)).status).toBe(404);
      expect((await useLink(link.token, olga)).status).toBe(409); // a member: the link stays

      const bob = await signIn(BOB);
      const joined = await useLink(link.token, bob);
      expect(joined.status).toBe(201);
      expect(await body(joined)).toMatchObject({ login: 'bob-2', role: 'member', project_id: id });
      expect((await useLink(link.token, mallory)).status).toBe(404); // single use
      expect(await members(id, olga)).toEqual(['olga:owner', 'bob-2:member']);
      expect(await outstanding(id, olga)).toEqual([]);

      // An expired link (its expiry moved into the past) is neither listed nor accepted.
      const late = await body<{ token: string }>(
        await server.request(`/svc/api/projects/${id}/invitation-links`, {
          method: 'POST',
          as: olga,
          json: { role: 'owner' },
        }),
      );
      await server.deps.db.pendingInvitation.updateMany({
        where: { project_id: id },
        data: { expires_at: new Date(Date.now() - 1000) },
      });
      expect(await outstanding(id, olga)).toEqual([]);
      expect((await useLink(late.token, mallory)).status).toBe(404);
      expect(await members(id, olga)).toEqual(['olga:owner', 'bob-2:member']);
    });
  },
);

describe.each(TEST_PROVIDERS)('invitations bound to what the invitee proves, SSO sign-in, on %s', (dbProvider) => {
  let sso: SsoProvider;
  let server: TestServer;
  const { invitationsOf, accept, invite, members } = invitationHelpers(() => server);

  async function signIn(openId: string, nickname: string): Promise<string> {
    sso.nextUser = { open_id: openId, union_id: `union-${openId}`, nickname, avatar: '' };
    const browser = new Browser();
    await browser.follow(`${server.url}/svc/auth/login`);
    const cookie = browser.cookie('svc_session');
    if (!cookie) throw new Error('the sign-in set no session cookie');
    return `svc_session=${cookie.value}`;
  }

  beforeAll(async () => {
    sso = await startSsoProvider();
    server = await startTestServer(dbProvider, { AUTH_PROVIDER: 'sso', ...sso.env });
    server.deps.config.publicUrl = server.url;
  });
  afterAll(async () => {
    await server?.close();
    await sso?.close();
  });

  it('gives an invitation by login to nobody new and one by open_id to that account alone', async () => {
    const owner = await signIn('open-olga', 'Olga');
    const { id } = await createProject(server, owner, 'Short video');
    expect((await invite(id, 'bob', 'owner', owner)).status).toBe(202);
    expect((await invite(id, 'sso:open-bob', 'owner', owner)).status).toBe(202);
    const mallory = await signIn('open-mallory', 'Bob');
    expect(await invitationsOf(mallory)).toEqual([]);
    expect((await accept(id, mallory)).status).toBe(404);
    const bob = await signIn('open-bob', 'Bob');
    expect((await invitationsOf(bob)).map((i) => i.role)).toEqual(['owner']);
    expect((await accept(id, bob)).status).toBe(201);
    expect(await members(id, owner)).toEqual(['olga:owner', 'bob-2:owner']);
    expect((await accept(id, mallory)).status).toBe(404);
  });
});

describe.each(TEST_PROVIDERS)("owner invitations die with their inviter's ownership, on %s", (dbProvider) => {
  let server: TestServer;
  const { invitationsOf, accept, invite, outstanding } = invitationHelpers(() => server);

  beforeAll(async () => {
    server = await startTestServer(dbProvider);
  });
  afterAll(async () => server?.close());

  /** A project owned by olga and by `co`, who invites owners (a login, a signed-in user, an e-mail, a link) and a member. */
  async function coOwned(co: string) {
    const olga = await server.login('olga');
    const coOwner = await server.login(co);
    const fred = await server.login(`fred-${co}`);
    const { id } = await createProject(server, olga, `With ${co}`);
    await invite(id, co, 'owner', olga);
    expect((await accept(id, coOwner)).status).toBe(201);
    await invite(id, `dave-${co}`, 'owner', coOwner);
    await invite(id, `fred-${co}`, 'owner', coOwner);
    await invite(id, `email:${co}@example.com`, 'owner', coOwner);
    await invite(id, `erin-${co}`, 'member', coOwner);
    await invite(id, `gus-${co}`, 'owner', olga);
    const link = await body<{ token: string }>(
      await server.request(`/svc/api/projects/${id}/invitation-links`, {
        method: 'POST',
        as: coOwner,
        json: { role: 'owner' },
      }),
    );
    expect((await outstanding(id, olga)).length).toBe(6);
    const coId = (await body<{ id: string }>(await server.request('/svc/api/me', { as: coOwner }))).id;
    return { id, olga, coOwner, coId, fred, link: link.token };
  }

  const expectRevoked = async (world: Awaited<ReturnType<typeof coOwned>>, co: string) => {
    expect(await outstanding(world.id, world.olga)).toEqual([`erin-${co}:member`, `gus-${co}:owner`]);
    expect(await invitationsOf(world.fred)).toEqual([]);
    expect((await accept(world.id, world.fred)).status).toBe(404);
    const viaLink = await server.request('/svc/api/invitations/accept-link', {
      method: 'POST',
      as: world.fred,
      json: { token: world.link },
    });
    expect(viaLink.status).toBe(404);
  };

  it('revokes them when the inviter is demoted', async () => {
    const world = await coOwned('carl');
    const demoted = await server.request(`/svc/api/projects/${world.id}/members/${world.coId}`, {
      method: 'PATCH',
      as: world.olga,
      json: { role: 'member' },
    });
    expect(demoted.status).toBe(200);
    await expectRevoked(world, 'carl');
  });

  it('revokes them when the inviter is removed', async () => {
    const world = await coOwned('rita');
    const removed = await server.request(`/svc/api/projects/${world.id}/members/${world.coId}`, {
      method: 'DELETE',
      as: world.olga,
    });
    expect(removed.status).toBe(204);
    await expectRevoked(world, 'rita');
  });

  it('revokes them when the inviter leaves', async () => {
    const world = await coOwned('lena');
    const left = await server.request(`/svc/api/projects/${world.id}/members/${world.coId}`, {
      method: 'DELETE',
      as: world.coOwner,
    });
    expect(left.status).toBe(204);
    await expectRevoked(world, 'lena');
  });
});
