import { TestWorker } from '@svc/test-kit';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject } from '../support/fixtures';

interface Listed {
  id: string;
  name: string;
  scope: string;
  project_id: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  user_login?: string;
}

describe.each(TEST_PROVIDERS)('recorded api and worker tokens on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let bob: string;
  let root: string;
  beforeAll(async () => {
    server = await startTestServer(provider);
    [ann, bob, root] = await Promise.all([server.login('ann'), server.login('bob'), server.login('root')]);
  });
  afterAll(async () => server?.close());

  const mint = async (as: string, json: Record<string, unknown>) => {
    const res = await server.request('/svc/api/token', { method: 'POST', as, json });
    expect(res.status).toBe(201);
    return (await body<{ token: string }>(res)).token;
  };
  const list = async (as: string, query = '') => {
    const res = await server.request(`/svc/api/tokens${query}`, { as });
    expect(res.status).toBe(200);
    return body<Listed[]>(res);
  };
  const revoke = (as: string, id: string) => server.request(`/svc/api/tokens/${id}`, { method: 'DELETE', as });
  const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
  const jtiOf = (token: string) => claimsOf(token).jti as string;
  const expOf = (token: string) => claimsOf(token).exp as number;

  it('lists the caller’s own api and worker tokens, newest first, never job tokens or sessions', async () => {
    const project = await createProject(server, ann, 'Shop');
    const ci = await mint(ann, { name: 'CI of shop', project_id: project.id, ttl_seconds: 3600 });
    const plain = await mint(ann, {});
    await mint(bob, { name: 'bob’s' });
    const workflow = await body<{ id: string }>(
      await server.request(`/svc/api/projects/${project.id}/workflows`, {
        method: 'POST',
        as: ann,
        json: { requirement: 'r' },
      }),
    );
    await mint(ann, { scope: 'job', workflow_id: workflow.id });

    const mine = await list(ann);
    expect(mine.map((t) => t.id)).toEqual([jtiOf(plain), jtiOf(ci)]);
    const named = mine.find((t) => t.id === jtiOf(ci))!;
    expect(named).toEqual({
      id: jtiOf(ci),
      name: 'CI of shop',
      scope: 'api',
      project_id: project.id,
      created_at: expect.any(String),
      expires_at: expect.any(String),
      revoked_at: null,
    });
    expect(named.expires_at).toBe(new Date(expOf(ci) * 1000).toISOString());
    expect(mine.find((t) => t.id === jtiOf(plain))).toMatchObject({ name: '', project_id: null });

    const worker = await mint(root, { scope: 'worker', name: 'build box' });
    expect(await list(root)).toEqual([
      expect.objectContaining({ id: jtiOf(worker), scope: 'worker', name: 'build box' }),
    ]);
  });

  it('lists everyone’s tokens, with their owner, only to an administrator asking for all', async () => {
    const all = await list(root, '?all=1');
    expect(new Set(all.map((t) => t.user_login))).toEqual(new Set(['ann', 'bob', 'root']));
    const refused = await server.request('/svc/api/tokens?all=1', { as: ann });
    expect(refused.status).toBe(403);
    const bad = await server.request('/svc/api/tokens?all=yes', { as: root });
    expect(bad.status).toBe(400);
    expect((await body(bad)).error.code).toBe('invalid_input');
  });

  it('refuses the token on its next use once revoked, and says so in the list', async () => {
    const token = await mint(ann, { name: 'to revoke' });
    expect((await server.request('/svc/api/me', { as: token })).status).toBe(200);
    const res = await revoke(ann, jtiOf(token));
    expect(res.status).toBe(204);
    const next = await server.request('/svc/api/me', { as: token });
    expect(next.status).toBe(401);
    expect((await list(ann)).find((t) => t.id === jtiOf(token))?.revoked_at).toEqual(expect.any(String));
    expect((await revoke(ann, jtiOf(token))).status).toBe(204); // again: still revoked, no error
  });

  it('answers 404 for someone else’s token and leaves it working; an administrator may revoke it', async () => {
    const bobs = await mint(bob, { name: 'bob CI' });
    const res = await revoke(ann, jtiOf(bobs));
    expect(res.status).toBe(404);
    expect((await body(res)).error).toMatchObject({ code: 'not_found', request_id: expect.any(String) });
    expect((await revoke(ann, 'no-such-token')).status).toBe(404);
    expect((await server.request('/svc/api/me', { as: bobs })).status).toBe(200);
    const row = await server.deps.db.apiToken.findUniqueOrThrow({ where: { jti: jtiOf(bobs) } });
    expect(row.revoked_at).toBeNull();

    expect((await revoke(root, jtiOf(bobs))).status).toBe(204);
    expect((await server.request('/svc/api/me', { as: bobs })).status).toBe(401);
  });

  it('lets an unnarrowed api token revoke itself, but no project-narrowed token manage tokens', async () => {
    const project = await createProject(server, ann, 'Narrow');
    const narrowed = await mint(ann, { project_id: project.id });
    expect((await server.request('/svc/api/tokens', { as: narrowed })).status).toBe(403);
    expect((await revoke(narrowed, jtiOf(narrowed))).status).toBe(403);
    const ci = await mint(ann, {});
    expect((await revoke(ci, jtiOf(ci))).status).toBe(204);
    expect((await server.request('/svc/api/tokens', { as: ci })).status).toBe(401);
  });

  it('refuses a name that is too long, and a name on a job token, recording nothing', async () => {
    const before = await server.deps.db.apiToken.count();
    const long = await server.request('/svc/api/token', { method: 'POST', as: ann, json: { name: 'x'.repeat(101) } });
    expect(long.status).toBe(400);
    const project = await createProject(server, ann, 'Jobs');
    const workflow = await body<{ id: string }>(
      await server.request(`/svc/api/projects/${project.id}/workflows`, {
        method: 'POST',
        as: ann,
        json: { requirement: 'r' },
      }),
    );
    const job = await server.request('/svc/api/token', {
      method: 'POST',
      as: ann,
      json: { scope: 'job', workflow_id: workflow.id, name: 'n' },
    });
    expect(job.status).toBe(400);
    expect((await body(job)).error.code).toBe('invalid_input');
    await expect(server.deps.db.apiToken.count()).resolves.toBe(before);
  });

  it('closes a connected worker’s socket when its worker token is revoked, and refuses it from then on', async () => {
    const token = await mint(root, { scope: 'worker', name: 'revoked box' });
    const worker = await TestWorker.start(server, token, 'revoked-box');
    expect((await revoke(root, jtiOf(token))).status).toBe(204);
    expect(await worker.inbox.whenClosed()).toEqual({ code: 4401, reason: 'worker token revoked' });
    await expect(TestWorker.connect(server, token)).rejects.toMatchObject({ status: 401 });
  });
});
