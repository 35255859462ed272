import type { Repository, RepositoryList, WorkflowRepository } from '@svc/protocol';
import { AppLinks } from '../../src/apps/app-link';
import { buildDispatch } from '../../src/dispatch/message';
import { driverOf, startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { addMember, body, createProject } from '../support/fixtures';

const TOKEN = 'ghp_repository-token-4c7e1a9b';
const NEW_TOKEN = 'ghp_replaced-token-88f0d2e1';

/** Repositories of a project (decision 0046): who may do what, what answers never hold, what a run gets. */
describe.each(TEST_PROVIDERS)('project repositories on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  let mallory: string;
  let projectId: string;
  let otherProject: string;

  beforeAll(async () => {
    server = await startTestServer(provider);
    alice = await server.login('alice');
    bob = await server.login('bob');
    mallory = await server.login('mallory');
    projectId = (await createProject(server, alice)).id;
    otherProject = (await createProject(server, alice, 'Other')).id;
    await addMember(server, alice, projectId, 'bob');
  });
  afterAll(async () => server?.close());

  const create = (json: unknown, as = alice, project = projectId) =>
    server.request(`/svc/api/projects/${project}/repositories`, { method: 'POST', as, json });
  const list = async (as = alice, project = projectId) =>
    body<RepositoryList>(await server.request(`/svc/api/projects/${project}/repositories`, { as }));
  const repo = (id: string, init: { method?: string; as?: string; json?: unknown } = {}) =>
    server.request(`/svc/api/repositories/${id}`, { as: alice, ...init });
  const valid = {
    name: 'shop',
    url: 'https://github.com/acme/shop.git',
    forge: 'github',
    credential: { kind: 'token', value: TOKEN },
  };

  it('owners connect, change and delete repositories; members see them; the credential never comes back', async () => {
    const res = await create({ ...valid, trigger_label: 'svc', trigger_command: '/svc' });
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain(TOKEN);
    const created = JSON.parse(text) as Repository;
    expect(created).toMatchObject({
      name: 'shop',
      forge: 'github',
      api_base_url: 'https://api.github.com',
      default_branch: 'main',
      credential_kind: 'token',
      trigger_label: 'svc',
      trigger_command: '/svc',
      webhook_url: expect.stringMatching(new RegExp(`/svc/api/hooks/forge/${created.id}$`)),
      webhook_secret: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // Stored encrypted as secrets of scope `repository`, not as a project secret a run's commands get.
    const rows = await server.deps.db.secret.findMany({ where: { owner_key: created.id } });
    expect(rows.map((r) => [r.scope, r.name]).sort()).toEqual([
      ['repository', 'credential'],
      ['repository', 'webhook_secret'],
    ]);
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
    expect(await server.deps.secrets.repositories.read(created.id, 'credential')).toBe(TOKEN);
    expect((await server.request(`/svc/api/projects/${projectId}/secrets`, { as: alice }).then(body)).items).toEqual(
      [],
    );

    // A member lists and reads it (never the credential or webhook secret), but may not change it.
    const seen = await list(bob);
    expect(seen.items.map((r) => r.name)).toEqual(['shop']);
    expect(seen.items[0]).not.toHaveProperty('webhook_secret');
    const read = await repo(created.id, { as: bob });
    expect(read.status).toBe(200);
    expect(await read.text()).not.toContain(TOKEN);
    expect((await create({ ...valid, name: 'other' }, bob)).status).toBe(403);
    expect((await repo(created.id, { method: 'PATCH', as: bob, json: { name: 'x' } })).status).toBe(403);
    expect((await repo(created.id, { method: 'DELETE', as: bob })).status).toBe(403);
    // Someone outside the project does not learn it exists.
    expect((await repo(created.id, { as: mallory })).status).toBe(404);
    expect((await server.request(`/svc/api/projects/${projectId}/repositories`, { as: mallory })).status).toBe(404);

    // A name is unique among the project's live repositories (409), not across projects.
    const taken = await create(valid);
    expect(taken.status).toBe(409);
    expect(await body(taken)).toMatchObject({ error: { code: 'conflict' } });
    expect((await create(valid, alice, otherProject)).status).toBe(201);

    // A PATCH changes what it names; a new credential replaces the stored one.
    const patched = await repo(created.id, {
      method: 'PATCH',
      json: { default_branch: 'develop', credential: { kind: 'token', value: NEW_TOKEN }, trigger_label: null },
    });
    expect(patched.status).toBe(200);
    const patchedText = await patched.text();
    expect(patchedText).not.toContain(NEW_TOKEN);
    expect(JSON.parse(patchedText)).toMatchObject({ default_branch: 'develop', trigger_label: null, name: 'shop' });
    expect(await server.deps.secrets.repositories.read(created.id, 'credential')).toBe(NEW_TOKEN);

    // A run naming it gets its branch; its dispatch carries the repository with the credential.
    const run = await server.request(`/svc/api/projects/${projectId}/workflows`, {
      method: 'POST',
      as: bob,
      json: { requirement: 'Fix the checkout: totals off by one!', repository: { id: created.id } },
    });
    expect(run.status).toBe(201);
    const workflow = await body<{ id: string; number: number }>(run);
    const record = await body<WorkflowRepository>(
      await server.request(`/svc/api/workflows/${workflow.id}/repository`, { as: bob }),
    );
    expect(record).toMatchObject({
      repository: { id: created.id, name: 'shop' },
      base_branch: 'develop',
      branch: `svc/${workflow.number}-fix-the-checkout-totals-off-by-one`,
      head_sha: null,
      pushed_at: null,
    });
    const row = await server.deps.db.workflow.findUniqueOrThrow({ where: { id: workflow.id } });
    const dispatch = await buildDispatch(
      { ...driverOf(server), appLinks: new AppLinks(server.deps.config), secrets: server.deps.secrets.runs },
      row,
      'start',
    );
    expect(dispatch.repository).toEqual({
      url: valid.url,
      base_branch: 'develop',
      branch: record.branch,
      credential: { kind: 'token', value: NEW_TOKEN },
      author: { name: 'svc', email: 'svc@users.noreply.svc' },
      co_author: { name: expect.any(String), email: expect.any(String) },
    });
    // No project secret: the credential is not among the command environment's secrets.
    expect(dispatch.secrets).toBeUndefined();
    // The server's masker of the run's texts knows the credential.
    const masker = await server.deps.secrets.runs.maskerOf(workflow.id);
    expect(masker?.mask(`token ${NEW_TOKEN}`)).toBe('token ***');
    const diff = await server.request(`/svc/api/workflows/${workflow.id}/repository/diff`, { as: bob });
    expect(await body(diff)).toEqual({
      base_branch: 'develop',
      branch: record.branch,
      head_sha: null,
      patch: '',
      truncated: false,
    });
    expect((await server.request(`/svc/api/workflows/${workflow.id}/repository`, { as: mallory })).status).toBe(404);

    // Deleted: gone from the list, its credential erased, the run keeps its record.
    expect((await repo(created.id, { method: 'DELETE' })).status).toBe(204);
    expect((await repo(created.id)).status).toBe(404);
    expect((await list()).items).toEqual([]);
    expect(await server.deps.db.secret.count({ where: { owner_key: created.id } })).toBe(0);
    expect((await server.request(`/svc/api/workflows/${workflow.id}/repository`, { as: bob })).status).toBe(200);
    // A run may not name a deleted repository, nor another project's.
    for (const id of [created.id, (await list(alice, otherProject)).items[0]!.id]) {
      const refused = await server.request(`/svc/api/projects/${projectId}/workflows`, {
        method: 'POST',
        as: alice,
        json: { requirement: 'r', repository: { id } },
      });
      expect(refused.status).toBe(400);
    }
    // The name is free again.
    expect((await create(valid)).status).toBe(201);
  });

  it('answers 404 for the repository of a run that has none', async () => {
    const run = await body<{ id: string }>(
      await server.request(`/svc/api/projects/${projectId}/workflows`, {
        method: 'POST',
        as: alice,
        json: { requirement: 'no repository' },
      }),
    );
    expect((await server.request(`/svc/api/workflows/${run.id}/repository`, { as: alice })).status).toBe(404);
  });

  it.each([
    ['a URL with a password in it', { ...valid, url: 'https://user:pw@github.com/acme/shop.git' }],
    ['a URL with a user in it', { ...valid, url: 'https://user@github.com/acme/shop.git' }],
    ['a file: URL', { ...valid, url: 'file:///etc/passwd' }],
    ['an unknown forge', { ...valid, forge: 'bitbucket' }],
    ['a short credential', { ...valid, credential: { kind: 'token', value: 'short' } }],
    ['an unknown credential kind', { ...valid, credential: { kind: 'password', value: 'long-enough-value' } }],
    ['a bad branch', { ...valid, default_branch: '../main' }],
    ['a bad name', { ...valid, name: 'has space' }],
    ['a bad command', { ...valid, trigger_command: 'svc' }],
    ['an unknown key', { ...valid, extra: 1 }],
    // The server calls the forge API: the outbound-target rules of webhooks hold for it.
    ['an API base URL on a link-local address', { ...valid, api_base_url: 'http://169.254.169.254/latest' }],
    ['an API base URL on loopback', { ...valid, api_base_url: 'http://127.0.0.1:8080/api/v3' }],
    ['a clone URL whose derived API base URL is internal', { ...valid, url: 'http://10.0.0.5/acme/shop.git' }],
  ])('refuses %s with the contract error and changes nothing', async (_what, json) => {
    const before = await list();
    const res = await create(json);
    expect(res.status).toBe(400);
    expect(await body(res)).toMatchObject({ error: { code: 'invalid_input', message: expect.any(String) } });
    expect(await list()).toEqual(before);
  });
});
