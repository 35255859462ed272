import type { JsonWebKey } from 'node:crypto';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject, createWorkflow } from '../support/fixtures';
import { decodeJwt, ecThumbprint, verifyEs256 } from '../support/jwt';

const DAY = 24 * 3600;

describe.each(TEST_PROVIDERS)('POST /svc/api/token on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  let root: string;
  let aliceId: string;
  let rootId: string;
  let projectA: string;
  let projectC: string;
  let projectB: string;
  let workflowA: string;
  let workflowB: string;

  const mint = (as: string, json: unknown) => server.request('/svc/api/token', { method: 'POST', as, json });
  /** A token the server minted for `as` (fails the test unless 201). */
  async function minted(as: string, json: unknown): Promise<string> {
    const res = await mint(as, json);
    expect(res.status).toBe(201);
    return (await body<{ token: string }>(res)).token;
  }
  const errorOf = async (res: Response) => (await body<{ error: { code: string; message: string } }>(res)).error;

  beforeAll(async () => {
    server = await startTestServer(provider);
    [alice, bob, root] = [await server.login('alice'), await server.login('bob'), await server.login('root')];
    aliceId = (await body<{ id: string }>(await server.request('/svc/api/me', { as: alice }))).id;
    rootId = (await body<{ id: string }>(await server.request('/svc/api/me', { as: root }))).id;
    projectA = (await createProject(server, alice, 'A')).id;
    projectC = (await createProject(server, alice, 'C')).id;
    projectB = (await createProject(server, bob, 'B')).id;
    workflowA = (await createWorkflow(server, alice, projectA)).id;
    workflowB = (await createWorkflow(server, bob, projectB)).id;
  });
  afterAll(async () => server?.close());

  it('issues an api token whose signature, kid and claims check out with Node crypto and the JWKS', async () => {
    const res = await mint(alice, {});
    expect(res.status).toBe(201);
    const issued = await body<{ token: string; token_type: string; expires_at: string }>(res);
    expect(Object.keys(issued).sort()).toEqual(['expires_at', 'token', 'token_type']);
    expect(issued.token_type).toBe('Bearer');

    const jwks = await body<{ keys: (JsonWebKey & { kid: string })[] }>(
      await server.request('/svc/api/.well-known/jwks.json'),
    );
    expect(jwks.keys).toHaveLength(1);
    const jwk = jwks.keys[0]!;
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwk).not.toHaveProperty('d');
    expect(jwk.kid).toBe(ecThumbprint(jwk));

    const { header, payload } = decodeJwt(issued.token);
    expect(header).toEqual({ alg: 'ES256', kid: jwk.kid, typ: 'JWT' });
    expect(verifyEs256(issued.token, jwk)).toBe(true);
    const [h, , s] = issued.token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: rootId })).toString('base64url')}.${s}`;
    expect(verifyEs256(tampered, jwk)).toBe(false);

    const now = Math.floor(Date.now() / 1000);
    expect(payload).toMatchObject({ iss: 'svc', aud: 'svc', sub: aliceId, scope: 'api' });
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs((payload.iat as number) - now)).toBeLessThan(30);
    expect((payload.exp as number) - (payload.iat as number)).toBe(30 * DAY);
    expect(payload).not.toHaveProperty('project_id');
    expect(issued.expires_at).toBe(new Date((payload.exp as number) * 1000).toISOString());
    expect(await body(await server.request('/svc/api/me', { as: issued.token }))).toMatchObject({ login: 'alice' });
  });

  it('lets ttl_seconds shorten the lifetime within 60 s .. 365 days', async () => {
    const { payload } = decodeJwt(await minted(alice, { ttl_seconds: 3600 }));
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
    expect((await mint(alice, { ttl_seconds: 59 })).status).toBe(400);
    expect((await mint(alice, { ttl_seconds: 365 * DAY + 1 })).status).toBe(400);
  });

  it.each([['sub'], ['aud'], ['iss'], ['exp']])(
    'rejects a body that tries to set %s as an unknown field',
    async (field) => {
      const res = await mint(alice, { [field]: field === 'exp' ? 9_999_999_999 : rootId });
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toMatchObject({ code: 'invalid_input', message: `body.${field}: unknown field` });
    },
  );

  it('gives the worker scope to administrators only', async () => {
    const refused = await mint(alice, { scope: 'worker' });
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).code).toBe('forbidden');
    const worker = await minted(root, { scope: 'worker' });
    expect(decodeJwt(worker).payload).toMatchObject({ scope: 'worker', sub: `worker:${rootId}` });
    expect((await server.request('/svc/api/me', { as: worker })).status).toBe(401); // not a person
    // It reaches only workflows dispatched to its worker (security/worker-token-scope.test.ts): none yet.
    expect((await server.request(`/svc/api/workflows/${workflowA}`, { as: worker })).status).toBe(404);
    expect((await mint(root, { scope: 'worker', project_id: projectA })).status).toBe(400);
  });

  it('narrows an api token to one project of the caller: other projects vanish and none can be created', async () => {
    const narrowed = await minted(alice, { project_id: projectA });
    expect(decodeJwt(narrowed).payload.project_id).toBe(projectA);
    expect((await server.request(`/svc/api/projects/${projectA}`, { as: narrowed })).status).toBe(200);
    expect((await server.request(`/svc/api/projects/${projectC}`, { as: narrowed })).status).toBe(404);
    expect(
      (await body<{ id: string }[]>(await server.request('/svc/api/projects', { as: narrowed }))).map((p) => p.id),
    ).toEqual([projectA]);
    const create = await server.request('/svc/api/projects', {
      method: 'POST',
      as: narrowed,
      json: { name: 'Sneaky' },
    });
    expect(create.status).toBe(403);
    expect(await server.deps.db.project.count({ where: { name: 'Sneaky' } })).toBe(0);
  });

  it('answers 404 for narrowing to a project the caller is not in, or that does not exist', async () => {
    const foreign = await mint(alice, { project_id: projectB });
    expect(foreign.status).toBe(404);
    expect((await errorOf(foreign)).code).toBe('not_found');
    expect((await mint(alice, { project_id: 'no-such-project' })).status).toBe(404);
  });

  it('treats an api token as a leaf credential: it mints no api, worker or job token', async () => {
    const api = await minted(alice, {});
    expect((await mint(api, {})).status).toBe(403);
    expect((await mint(api, { scope: 'job', workflow_id: workflowA })).status).toBe(403);
    const rootApi = await minted(root, {});
    expect((await mint(rootApi, { scope: 'worker' })).status).toBe(403);
  });

  it('issues a job token to a member session, scoped to one workflow', async () => {
    const job = await minted(alice, { scope: 'job', workflow_id: workflowA });
    const { payload } = decodeJwt(job);
    expect(payload).toMatchObject({
      scope: 'job',
      sub: `job:${workflowA}`,
      project_id: projectA,
      workflow_id: workflowA,
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
    expect((await server.request(`/svc/api/workflows/${workflowA}`, { as: job })).status).toBe(200);
    expect((await server.request(`/svc/api/workflows/${workflowB}`, { as: job })).status).toBe(404);
    // A worker token mints them only for what its worker runs (security/worker-token-scope.test.ts).
    const worker = await minted(root, { scope: 'worker' });
    expect((await mint(worker, { scope: 'job', workflow_id: workflowB })).status).toBe(404);
  });

  it('refuses job tokens to non-members, to job tokens, for a mismatched project, and other scopes to a worker', async () => {
    expect((await mint(bob, { scope: 'job', workflow_id: workflowA })).status).toBe(404);
    const job = await minted(alice, { scope: 'job', workflow_id: workflowA });
    expect((await mint(job, { scope: 'job', workflow_id: workflowA })).status).toBe(403);
    expect((await mint(alice, { scope: 'job', workflow_id: workflowA, project_id: projectC })).status).toBe(400);
    expect((await mint(alice, { scope: 'job' })).status).toBe(400);
    const worker = await minted(root, { scope: 'worker' });
    expect((await mint(worker, {})).status).toBe(403);
  });

  it('needs a signed-in caller', async () => {
    const res = await server.request('/svc/api/token', { method: 'POST', json: {} });
    expect(res.status).toBe(401);
    expect((await errorOf(res)).code).toBe('unauthenticated');
  });
});
