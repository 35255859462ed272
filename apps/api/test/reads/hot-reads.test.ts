import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { addMember, body, createProject, createWorkflow, storeSnapshot } from '../support/fixtures';

// Issue 11: the hot reads (one statement for the caller, the workflow and the membership, issue 22's
// reads/access.ts) answer with the app's headers, and see every membership change, project delete and
// revocation at once.
describe.each(TEST_PROVIDERS)('hot reads on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let workflow: { id: string; project_id: string };
  let failed: { id: string; project_id: string };
  beforeAll(async () => {
    server = await startTestServer(provider);
    ann = await server.login('ann');
    const project = await createProject(server, ann);
    workflow = await createWorkflow(server, ann, project.id);
    // Issue 14's workflow fields: a worker's name, run times, a revision, step times and an interrupted step.
    const worker = await server.deps.db.worker.create({ data: { name: 'builder-1', labels: [] } });
    failed = await createWorkflow(server, ann, project.id);
    await server.deps.db.workflow.update({
      where: { id: failed.id },
      data: {
        status: 'failed',
        assigned_worker_id: worker.id,
        rerun_of: workflow.id,
        plan_revision: 2,
        started_at: new Date('2026-01-01T10:00:00.123Z'),
        finished_at: new Date('2026-01-01T10:05:00Z'),
      },
    });
    await storeSnapshot(server.deps.db, failed.id, 1, {
      phase: 'executing',
      current_step: 1,
      steps: ['a', 'b'].map((title, i) => ({ title, description: title, status: ['done', 'running'][i]! })),
    });
    // the step times its plan_step_status events kept (step 0 ran and finished, step 1 is running)
    const at = (minute: number) => new Date(`2026-01-01T10:0${minute}:00.000Z`);
    await server.deps.db.planStepTime.createMany({
      data: [
        { workflow_id: failed.id, step_index: 0, started_at: at(1), finished_at: at(2) },
        { workflow_id: failed.id, step_index: 1, started_at: at(2), finished_at: null },
      ],
    });
    await storeSnapshot(server.deps.db, workflow.id, 2, {
      phase: 'executing',
      current_step: 1,
      steps: ['a', 'b', 'c'].map((title, i) => ({
        title,
        description: `do ${title}`,
        status: ['done', 'running', 'pending'][i]!,
      })),
    });
    await server.deps.db.executionLogEntry.createMany({
      data: [1, 2, 3].map((seq) => ({
        workflow_id: workflow.id,
        seq,
        step_index: seq === 3 ? null : 0,
        tool_name: 'run_command',
        tool_input: { command: `make\nmake test ${seq}`, n: [seq, null, true] },
        output: `ok ${seq}`,
        is_error: seq === 2,
      })),
    });
    await server.deps.db.llmCallLog.createMany({
      data: [1, 2, 3].map((seq) => ({
        workflow_id: workflow.id,
        seq,
        phase: 'executing',
        model: 'm',
        prompt_tokens: seq === 2 ? null : 10 * seq,
        completion_tokens: seq,
        latency_ms: 100,
        error: seq === 3 ? 'HTTP 500' : null,
      })),
    });
  });
  afterAll(async () => server?.close());

  const paths = () => [
    `/workflows/${workflow.id}`,
    `/workflows/${workflow.id}/plan`,
    `/workflows/${failed.id}`,
    `/workflows/${failed.id}/plan`,
    `/workflows/${workflow.id}/log`,
    `/workflows/${workflow.id}/log?limit=2`,
    `/workflows/${workflow.id}/log?limit=1&cursor=${Buffer.from('[1]').toString('base64url')}`,
    `/workflows/${workflow.id}/llm-calls?limit=2`,
    `/workflows/${workflow.id}/llm-calls?cursor=${Buffer.from('[2]').toString('base64url')}`,
    '/projects',
  ];
  const HEADERS = ['content-type', 'etag', 'x-content-type-options', 'referrer-policy', 'x-frame-options'];
  const answer = async (path: string, as: string, headers: Record<string, string> = {}) => {
    const res = await server.request(`/svc/api${path}`, { as, headers });
    return {
      status: res.status,
      headers: Object.fromEntries(HEADERS.map((name) => [name, res.headers.get(name)])),
      body: await res.text(),
    };
  };

  it('answers a conditional request that does not match as a plain one, byte for byte', async () => {
    for (const path of paths()) {
      const plain = await answer(path, ann);
      const conditional = await answer(path, ann, { 'if-none-match': '"other"' });
      expect({ path, ...plain }).toEqual({ path, ...conditional });
      expect(plain.status).toBe(200);
      expect(plain.headers.etag).toMatch(/^W\/"/);
      // a matching one is answered 304 (fetch would add `Cache-Control: no-cache` without one of its own)
      const fresh = await server.request(`/svc/api${path}`, {
        as: ann,
        headers: { 'if-none-match': plain.headers.etag!, 'cache-control': 'max-age=0' },
      });
      expect(fresh.status).toBe(304);
    }
    // The new fields are really there (not both paths leaving them out alike).
    expect(JSON.parse((await answer(`/workflows/${failed.id}`, ann)).body)).toMatchObject({
      number: 2,
      rerun_of: workflow.id,
      worker_name: 'builder-1',
      plan_revision: 2,
      started_at: '2026-01-01T10:00:00.123Z',
      finished_at: '2026-01-01T10:05:00.000Z',
    });
    const plan = JSON.parse((await answer(`/workflows/${failed.id}/plan`, ann)).body);
    expect(plan.map((s: { status: string; interrupted?: string }) => [s.status, s.interrupted])).toEqual([
      ['done', undefined],
      ['pending', 'failed'],
    ]);
    expect(plan[1].started_at).toEqual(expect.any(String));
  });

  it('answers through the whole middleware chain as it does directly (a trailing slash takes the chain)', async () => {
    for (const path of paths()) {
      const [route, query] = path.split('?');
      const chained = await answer(`${route}/${query === undefined ? '' : `?${query}`}`, ann);
      expect({ path, ...chained }).toEqual({ path, ...(await answer(path, ann)) });
      expect(chained.headers['x-frame-options']).toBe('SAMEORIGIN');
    }
  });

  it('keeps a sane incoming request id and makes one otherwise', async () => {
    const path = `/svc/api/workflows/${workflow.id}/plan`;
    const kept = await server.request(path, { as: ann, headers: { 'x-request-id': 'trace-1' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-1');
    const made = await server.request(path, { as: ann, headers: { 'x-request-id': 'bad id!' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a removed member, a deleted project and a revoked session on the very next request', async () => {
    const project = await createProject(server, ann, 'Soon gone');
    const own = await createWorkflow(server, ann, project.id);
    const bob = await server.login('bob');
    await addMember(server, ann, project.id, 'bob');
    const bobId = (await server.deps.db.user.findUniqueOrThrow({ where: { login: 'bob' } })).id;
    const projectIds = async (as: string) =>
      (await body<{ id: string }[]>(await server.request('/svc/api/projects', { as }))).map((p) => p.id);
    for (const path of ['', '/plan', '/log', '/llm-calls'])
      expect((await server.request(`/svc/api/workflows/${own.id}${path}`, { as: bob })).status).toBe(200);
    expect(await projectIds(bob)).toContain(project.id);

    const removed = await server.request(`/svc/api/projects/${project.id}/members/${bobId}`, {
      method: 'DELETE',
      as: ann,
    });
    expect(removed.status).toBe(204);
    for (const path of ['', '/plan', '/log', '/llm-calls'])
      expect((await server.request(`/svc/api/workflows/${own.id}${path}`, { as: bob })).status).toBe(404);
    expect(await projectIds(bob)).not.toContain(project.id);

    expect((await server.request(`/svc/api/workflows/${own.id}/plan`, { as: ann })).status).toBe(200);
    expect((await server.request(`/svc/api/projects/${project.id}`, { method: 'DELETE', as: ann })).status).toBe(204);
    expect((await server.request(`/svc/api/workflows/${own.id}/plan`, { as: ann })).status).toBe(404);
    expect(await projectIds(ann)).not.toContain(project.id);

    const carol = await server.login('carol');
    expect((await server.request('/svc/api/projects', { as: carol })).status).toBe(200);
    expect((await server.request('/svc/auth/logout', { method: 'POST', as: carol })).status).toBe(204);
    const refused = await server.request('/svc/api/projects', { as: carol });
    expect(refused.status).toBe(401);
    expect(await body(refused)).toMatchObject({ error: { code: 'unauthenticated' } });
  });
});
