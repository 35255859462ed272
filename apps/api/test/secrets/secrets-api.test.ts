import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  repoRoot,
  spawnProcess,
  startApiProcess,
  TEST_PROVIDERS,
  TestWorker,
  workerToken,
  type ApiProcess,
  type TestRequestInit,
} from '@svc/test-kit';

const VALUE = 'olga-deploy-token-5c2e';
const REPLACED = 'olga-deploy-token-v2-77aa';
const INSTANCE_VALUE = 'instance-registry-key-0f9';

/** The real server as a process (its whole log kept): the secrets API, its audit, and key rotation. */
describe.each(TEST_PROVIDERS)('secrets through the API on %s', (provider) => {
  let api: ApiProcess;
  /** every answer's text, searched for values at the end */
  const answers: string[] = [];

  const call = async (path: string, init: TestRequestInit = {}) => {
    const res = await api.request(`/svc/api${path}`, init);
    const text = await res.text();
    answers.push(text);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const keyFile = () => join(api.dataDir, 'keys', 'secrets.key');
  const keyIds = () => (JSON.parse(readFileSync(keyFile(), 'utf8')).keys as { id: string }[]).map((k) => k.id);

  beforeAll(async () => {
    api = await startApiProcess({ provider, env: { LOG_LEVEL: 'trace' } });
  }, 60_000);
  afterAll(async () => api?.close());

  it('lets owners write, members list names and administrators keep instance secrets; values never come back', async () => {
    const [olga, max, nina, root] = (await Promise.all(
      ['olga', 'max', 'nina', 'root'].map((who) => api.login(who)),
    )) as [string, string, string, string];
    const project = (await call('/projects', { method: 'POST', as: olga, json: { name: 'Shop' } })).body.id as string;
    expect(
      (await call(`/projects/${project}/members`, { method: 'POST', as: olga, json: { login: 'max', role: 'member' } }))
        .status,
    ).toBe(202);
    expect((await call(`/invitations/${project}/accept`, { method: 'POST', as: max })).status).toBe(201);
    const secret = (name = 'DEPLOY_TOKEN') => `/projects/${project}/secrets/${name}`;
    const put = (as: string, json: unknown, name?: string) => call(secret(name), { method: 'PUT', as, json });

    const created = await put(olga, { value: VALUE });
    expect(created).toMatchObject({ status: 201, body: { name: 'DEPLOY_TOKEN', updated_by: { name: 'olga' } } });
    expect(Object.keys(created.body).sort()).toEqual(['created_at', 'name', 'updated_at', 'updated_by']);
    expect((await put(olga, { value: REPLACED })).status).toBe(200);
    expect((await put(max, { value: 'member-value' })).status).toBe(403);
    expect((await put(nina, { value: 'outsider-value' })).status).toBe(404);
    const before = [
      await call(`/projects/${project}/secrets`, { as: olga }),
      await call(`${secret('events')}`, { as: olga }),
    ];
    for (const [json, name] of [
      [{ value: 'abc' }, undefined],
      [{ value: 'x'.repeat(64 * 1024 + 1) }, undefined],
      [{ value: VALUE, extra: 1 }, undefined],
      [{ value: VALUE }, 'not-a-name'],
      [{ value: VALUE }, 'SVC_JWT'],
    ] as const) {
      const refused = await put(olga, json, name);
      expect(refused).toMatchObject({ status: 400, body: { error: { code: 'invalid_input' } } });
    }
    expect([
      await call(`/projects/${project}/secrets`, { as: olga }),
      await call(`${secret('events')}`, { as: olga }),
    ]).toEqual(before);

    const listed = await call(`/projects/${project}/secrets`, { as: max });
    expect(listed.body.items.map((s: { name: string }) => s.name)).toEqual(['DEPLOY_TOKEN']);
    expect((await call(`/projects/${project}/secrets`, { as: nina })).status).toBe(404);
    expect((await call(`/projects/${project}/secrets/events`, { as: nina })).status).toBe(404);

    const instance = (as: string, init: TestRequestInit = {}) => call('/admin/secrets/REGISTRY_KEY', { as, ...init });
    const instanceBody = { value: INSTANCE_VALUE, visibility: 'templates' };
    expect((await instance(olga, { method: 'PUT', json: instanceBody })).status).toBe(403);
    expect((await instance(root, { method: 'PUT', json: { value: INSTANCE_VALUE } })).status).toBe(400);
    expect(await instance(root, { method: 'PUT', json: instanceBody })).toMatchObject({
      status: 201,
      body: { name: 'REGISTRY_KEY', visibility: 'templates', updated_by: { name: 'root' } },
    });
    expect((await call('/admin/secrets', { as: root })).body.items).toEqual([
      expect.objectContaining({ name: 'REGISTRY_KEY', visibility: 'templates' }),
    ]);
    expect((await call('/admin/secrets', { as: olga })).status).toBe(403);

    expect((await call(secret(), { method: 'DELETE', as: max })).status).toBe(403);
    expect((await call(secret(), { method: 'DELETE', as: olga })).status).toBe(204);
    expect(await call(secret(), { method: 'DELETE', as: olga })).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });

    const events = (await call(`/projects/${project}/secrets/events?limit=2`, { as: max })).body;
    expect(events.items.map((e: { kind: string }) => e.kind)).toEqual(['deleted', 'updated']);
    expect(events.items[0]).toMatchObject({
      name: 'DEPLOY_TOKEN',
      scope: 'project',
      actor: { name: 'olga' },
      workflow_id: null,
    });
    const rest = (await call(`/projects/${project}/secrets/events?cursor=${events.next_cursor}`, { as: max })).body;
    expect(rest).toMatchObject({ items: [{ kind: 'created' }], next_cursor: null });
    expect((await call('/admin/secrets/events', { as: root })).body.items).toEqual([
      expect.objectContaining({
        kind: 'created',
        name: 'REGISTRY_KEY',
        scope: 'instance',
        actor: expect.objectContaining({ name: 'root' }),
      }),
    ]);

    for (const value of [VALUE, REPLACED, INSTANCE_VALUE]) {
      expect(answers.join('\n')).not.toContain(value);
      expect(api.process.output).not.toContain(value);
    }
    expect(api.process.output).toContain('/secrets/DEPLOY_TOKEN'); // the requests were logged
  });

  it('rotates the key with the documented command while the server runs; values still reach the runs', async () => {
    const olga = await api.login('olga');
    const project = (await call('/projects', { method: 'POST', as: olga, json: { name: 'Rotated' } })).body
      .id as string;
    expect(
      (await call(`/projects/${project}/secrets/API_KEY`, { method: 'PUT', as: olga, json: { value: VALUE } })).status,
    ).toBe(201);
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
    const [oldKey] = keyIds();

    const rotation = spawnProcess('secrets:rotate-key', 'pnpm', ['--filter', '@svc/api', 'secrets:rotate-key'], {
      cwd: repoRoot(),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: api.dataDir,
        NODE_ENV: 'test',
        DATA_DIR: api.dataDir,
        DATABASE_URL: api.databaseUrl,
      },
    });
    expect(await rotation.exited).toEqual({ code: 0, signal: null });
    expect(rotation.output).toMatch(/secrets key rotated: primary key \w+, \d+ value\(s\) re-encrypted/);
    expect(keyIds()).toHaveLength(1);
    expect(keyIds()[0]).not.toBe(oldKey);
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);

    // The running server knew only the old key: it reads the file again when it meets the new one.
    const worker = await TestWorker.start(api, await workerToken(api), 'rotated');
    try {
      const run = (
        await call(`/projects/${project}/workflows`, { method: 'POST', as: olga, json: { requirement: 'r' } })
      ).body.id;
      const dispatch = await worker.dispatch(run, 'start');
      expect(dispatch.secrets).toEqual([{ name: 'API_KEY', value: VALUE }]);
    } finally {
      worker.close();
    }
  });
});
