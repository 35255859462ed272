import { TestWorker, eventually, workerToken, type Message } from '@svc/test-kit';
import type { UpdateBody } from '@svc/protocol';
import type { TemplateCatalog } from '../../src/services/templates';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject } from '../support/fixtures';
import { openBrowser, resetWorkers, SETUP_TIMEOUT_MS } from '../ws/clients';

/** A catalog whose `deploy` template names one instance secret in its `.svc-secrets` file. */
const TEMPLATES: TemplateCatalog = {
  list: async () => [{ name: 'deploy', description: 'Deploys' }],
  materialize: async () => undefined,
  secretNames: async (name) => (name === 'deploy' ? ['DEPLOY_KEY'] : []),
};

const PROJECT_VALUE = 'project-a-token-8d1f';
const b64 = (text: string) => Buffer.from(text).toString('base64');

/** Which runs get which secrets (dispatch and exec), the audit of their use, and the server's own masking. */
describe.each(TEST_PROVIDERS)('the secrets of runs on %s', (provider) => {
  let server: TestServer;
  let token: string;
  let alice: string;
  let bob: string;
  let projectA: string;
  let projectB: string;
  const workers: TestWorker[] = [];

  const put = async (as: string, path: string, json: unknown) => {
    const res = await server.request(`/svc/api${path}`, { method: 'PUT', as, json });
    expect(res.status).toBe(201);
  };
  const run = async (as: string, projectId: string, extra: Record<string, unknown> = {}) => {
    const res = await server.request(`/svc/api/projects/${projectId}/workflows`, {
      method: 'POST',
      as,
      json: { requirement: 'Deploy it', ...extra },
    });
    expect(res.status).toBe(201);
    return ((await body(res)) as { id: string }).id;
  };
  const start = async (name: string, capacity = 3) => {
    const worker = await TestWorker.start(server, token, name, capacity);
    workers.push(worker);
    return worker;
  };
  const secretsOf = (message: Message) =>
    Object.fromEntries(((message.secrets ?? []) as { name: string; value: string }[]).map((s) => [s.name, s.value]));

  beforeAll(async () => {
    server = await startTestServer(provider, {}, { templates: TEMPLATES });
    token = await workerToken(server);
    const root = await server.login('root');
    alice = await server.login('alice');
    bob = await server.login('bob');
    projectA = (await createProject(server, alice, 'A')).id;
    projectB = (await createProject(server, bob, 'B')).id;
    await put(alice, `/projects/${projectA}/secrets/API_TOKEN`, { value: PROJECT_VALUE });
    await put(alice, `/projects/${projectA}/secrets/SHARED`, { value: 'project-shadows-it' });
    await put(root, '/admin/secrets/SHARED', { value: 'instance-shared', visibility: 'all' });
    await put(root, '/admin/secrets/GLOBAL', { value: 'instance-global', visibility: 'all' });
    await put(root, '/admin/secrets/DEPLOY_KEY', { value: 'deploy-key-value', visibility: 'templates' });
    await put(root, '/admin/secrets/UNNAMED_KEY', { value: 'not-named-by-any', visibility: 'templates' });
  }, SETUP_TIMEOUT_MS);
  afterEach(() => resetWorkers(server, workers));
  afterAll(async () => server?.close());

  it("gives each run its project's secrets and the instance secrets it may have, and records each use once", async () => {
    const worker = await start('runner');
    const plain = await run(alice, projectA);
    const deploy = await run(alice, projectA, { template: 'deploy' });
    const other = await run(bob, projectB);

    expect(secretsOf(await worker.dispatch(plain, 'start'))).toEqual({
      API_TOKEN: PROJECT_VALUE,
      GLOBAL: 'instance-global',
      SHARED: 'project-shadows-it',
    });
    expect(secretsOf(await worker.dispatch(deploy, 'start'))).toEqual({
      API_TOKEN: PROJECT_VALUE,
      DEPLOY_KEY: 'deploy-key-value',
      GLOBAL: 'instance-global',
      SHARED: 'project-shadows-it',
    });
    // Another project's run never gets project A's secrets.
    expect(secretsOf(await worker.dispatch(other, 'start'))).toEqual({
      GLOBAL: 'instance-global',
      SHARED: 'instance-shared',
    });

    // A command another worker runs for the run gets the asker's run's secrets.
    const target = await start('gpu-box', 1);
    worker.send({
      type: 'exec_request',
      request_id: 'r1',
      target_worker: 'gpu-box',
      workflow_id: other,
      command: 'env',
    });
    expect(secretsOf(await target.inbox.next((m) => m.type === 'exec'))).toEqual({
      GLOBAL: 'instance-global',
      SHARED: 'instance-shared',
    });

    // The run goes to another worker (the first one is lost): dispatched again, its use is not recorded again.
    target.close();
    worker.close();
    const next = await start('next');
    expect(secretsOf(await next.dispatch(plain))).toMatchObject({ API_TOKEN: PROJECT_VALUE });
    const events = async (path: string, as: string) =>
      ((await body(await server.request(`/svc/api${path}`, { as }))) as { items: Message[] }).items;
    const uses = (await events(`/projects/${projectA}/secrets/events`, alice)).filter((e) => e.kind === 'used');
    expect(uses.filter((e) => e.workflow_id === plain).map((e) => [e.scope, e.name])).toEqual(
      expect.arrayContaining([
        ['project', 'API_TOKEN'],
        ['project', 'SHARED'],
        ['instance', 'GLOBAL'],
      ]),
    );
    expect(uses.filter((e) => e.workflow_id === plain)).toHaveLength(3);
    expect(uses.filter((e) => e.workflow_id === deploy)).toHaveLength(4);
    // Project B's audit shows its run's uses of instance secrets, and nothing of project A.
    const bEvents = await events(`/projects/${projectB}/secrets/events`, bob);
    expect(bEvents.map((e) => [e.kind, e.scope, e.name, e.workflow_id]).sort()).toEqual([
      ['used', 'instance', 'GLOBAL', other],
      ['used', 'instance', 'SHARED', other],
    ]);
  });

  it('masks the run secrets in the updates it stores, the live output it relays and the texts the app shows', async () => {
    const worker = await start('masked');
    const id = await run(alice, projectA);
    const { last_seq } = await worker.dispatch(id, 'start');
    const page = await openBrowser(server, alice);
    page.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id, since_seq: 0 }));
    await page.inbox.next((m) => m.type === 'subscribed');

    const leaked = `token=${PROJECT_VALUE} b64=${b64(PROJECT_VALUE)} global=instance-global`;
    const log: UpdateBody = {
      kind: 'log_entry',
      data: {
        step_index: 0,
        tool_name: 'execute_on_worker',
        tool_input: { command: `echo ${PROJECT_VALUE}` },
        output: leaked,
        is_error: false,
      },
    };
    expect((await worker.store(id, last_seq + 1, log)).type).toBe('ack');
    const diff: UpdateBody = {
      kind: 'step_diff',
      data: {
        step_index: 0,
        files: [{ path: '.env', status: 'added', additions: 1, deletions: 0, binary: false }],
        patch: `+API_TOKEN=${PROJECT_VALUE}\n`,
        truncated: false,
      },
    };
    expect((await worker.store(id, last_seq + 2, diff)).type).toBe('ack');
    const routing = { type: 'command_output', workflow_id: id, call_id: 'c1' };
    worker.send({
      ...routing,
      event: 'started',
      step_index: 0,
      command: `curl -H ${PROJECT_VALUE}`,
      started_at: new Date().toISOString(),
    });
    worker.send({ ...routing, event: 'output', stream: 'stdout', offset: 0, chunk: `got ${PROJECT_VALUE}\n` });
    worker.send({ ...routing, event: 'finished', exit_code: 0, duration_ms: 5 });
    await page.inbox.next((m) => m.type === 'command_output' && m.data.event === 'finished');

    const relayed = JSON.stringify(page.inbox.messages);
    expect(relayed).not.toContain(PROJECT_VALUE);
    expect(relayed).toContain('got ***');
    const stored = JSON.stringify([
      await server.deps.db.executionLogEntry.findMany({ where: { workflow_id: id } }),
      await server.deps.db.stepDiff.findMany({ where: { workflow_id: id } }),
    ]);
    for (const value of [PROJECT_VALUE, b64(PROJECT_VALUE), 'instance-global']) expect(stored).not.toContain(value);
    expect(stored).toContain('token=*** b64=*** global=***');
    const get = async (path: string) => (await server.request(`/svc/api/workflows/${id}${path}`, { as: alice })).text();
    expect(await get('/log')).toContain('token=*** b64=***');
    expect(await get('/diffs')).toContain('+API_TOKEN=***');

    // Files: the app's previews and the report mask; a download is the file as it is.
    const write = async (path: string, text: string) =>
      expect(
        (await server.request(`/svc/api/workflows/${id}/files/${path}`, { method: 'PUT', as: alice, body: text }))
          .status,
      ).toBe(201);
    await write('notes.txt', `the key is ${PROJECT_VALUE}\n`);
    await write('report.md', `# Done\n\nUsed ${PROJECT_VALUE}.\n`);
    expect(await get('/files/notes.txt?raw')).toBe('the key is ***\n');
    expect(await get('/files/notes.txt')).toBe(`the key is ${PROJECT_VALUE}\n`);
    expect(await get('/report')).toBe('# Done\n\nUsed ***.\n');
    expect(await get('/report?format=html')).toContain('Used ***.');
    expect(await get('/files/report.md')).toContain('Used ***.');

    // A secret added later is masked at once (the cached masker is rebuilt).
    await put(alice, `/projects/${projectA}/secrets/LATE_TOKEN`, { value: 'late-value-77' });
    await write('late.txt', 'late-value-77');
    await eventually(async () => (await get('/files/late.txt?raw')) === '***', { what: 'the new secret masked' });
  });
});
