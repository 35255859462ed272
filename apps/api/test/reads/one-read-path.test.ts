import type { LlmCallUpdateData } from '@svc/protocol';
import { logEntry, TestWorker, workerToken } from '@svc/test-kit';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { addMember, body, createProject, createWorkflow } from '../support/fixtures';
import { SETUP_TIMEOUT_MS } from '../ws/clients';
import { pageCache } from '../../src/reads/page-cache';

const cursor = (seq: number) => Buffer.from(`[${seq}]`).toString('base64url');

// Issue 22: each hot read has one handler. A person's plain token is authorized with the workflow in one
// statement; every other caller the general way, by the same handler. Pages are cached by a stamp.
describe.each(TEST_PROVIDERS)('one read path on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let project: { id: string };
  let workflow: { id: string };
  const pages = pageCache(16 * 1024); // pages above 1 KiB are not kept
  beforeAll(async () => {
    server = await startTestServer(provider, {}, { pages });
    ann = await server.login('ann');
    project = await createProject(server, ann);
    workflow = await createWorkflow(server, ann, project.id);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => server?.close());

  const mint = async (as: string, json: Record<string, unknown>) => {
    const res = await server.request('/svc/api/token', { method: 'POST', as, json });
    expect(res.status).toBe(201);
    return (await body<{ token: string }>(res)).token;
  };
  const read = async (path: string, as: string) => {
    const res = await server.request(`/svc/api${path}`, { as });
    return { status: res.status, body: await res.text() };
  };

  it('answers a project-narrowed api token and a job token as it answers the session', async () => {
    const narrowed = await mint(ann, { scope: 'api', project_id: project.id });
    const job = await mint(ann, { scope: 'job', workflow_id: workflow.id });
    for (const view of ['', '/plan', '/log', '/llm-calls']) {
      const path = `/workflows/${workflow.id}${view}`;
      const bySession = await read(path, ann);
      expect(bySession.status).toBe(200);
      expect({ path, ...(await read(path, narrowed)) }).toEqual({ path, ...bySession });
      expect({ path, ...(await read(path, job)) }).toEqual({ path, ...bySession });
    }
    const listed = await read('/projects', narrowed);
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.body).map((p: { id: string }) => p.id)).toEqual([project.id]);
    expect(await body(await server.request('/svc/api/projects', { as: job }))).toMatchObject({
      error: { code: 'forbidden' },
    });

    const other = await createProject(server, ann, 'Other');
    const elsewhere = await mint(ann, { scope: 'api', project_id: other.id });
    expect((await read(`/workflows/${workflow.id}/log`, elsewhere)).status).toBe(404);
  });

  it('creates a workflow for a member only, reading the caller with the project: refusals change nothing', async () => {
    const shared = await createProject(server, ann, 'Create');
    const carl = await server.login('carl');
    const create = (as: string, projectId = shared.id) =>
      server.request(`/svc/api/projects/${projectId}/workflows`, {
        method: 'POST',
        as,
        json: { requirement: 'Build it' },
      });
    const runs = () => server.deps.db.workflow.count({ where: { project_id: shared.id } });

    expect((await create(carl)).status).toBe(404); // not a member: the project is invisible
    await addMember(server, ann, shared.id, 'carl');
    const made = await create(carl);
    expect(made.status).toBe(201);
    const carlId = (await server.deps.db.user.findUniqueOrThrow({ where: { login: 'carl' } })).id;
    const { id } = await body<{ id: string }>(made);
    expect(await server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).toMatchObject({
      project_id: shared.id,
      created_by: carlId,
    });

    const removed = await server.request(`/svc/api/projects/${shared.id}/members/${carlId}`, {
      method: 'DELETE',
      as: ann,
    });
    expect(removed.status).toBe(204);
    expect((await create(carl)).status).toBe(404);
    expect((await create(ann, 'no-such-project')).status).toBe(404);
    expect((await server.request(`/svc/api/projects/${shared.id}`, { method: 'DELETE', as: ann })).status).toBe(204);
    expect((await create(ann)).status).toBe(404);
    expect(await runs()).toBe(1);
  });

  it("refuses a removed member's session and narrowed token on the very next read", async () => {
    const shared = await createProject(server, ann, 'Shared');
    const own = await createWorkflow(server, ann, shared.id);
    const bob = await server.login('bob');
    await addMember(server, ann, shared.id, 'bob');
    const bobs = await mint(bob, { scope: 'api', project_id: shared.id });
    for (const as of [bob, bobs]) expect((await read(`/workflows/${own.id}/log`, as)).status).toBe(200);

    const bobId = (await server.deps.db.user.findUniqueOrThrow({ where: { login: 'bob' } })).id;
    const removed = await server.request(`/svc/api/projects/${shared.id}/members/${bobId}`, {
      method: 'DELETE',
      as: ann,
    });
    expect(removed.status).toBe(204);
    for (const view of ['', '/plan', '/log', '/llm-calls']) {
      const refused = await read(`/workflows/${own.id}${view}`, bob);
      expect({ view, status: refused.status }).toEqual({ view, status: 404 });
      // the narrowed token acts only while its user may see its project
      const unauthenticated = await read(`/workflows/${own.id}${view}`, bobs);
      expect({ view, status: unauthenticated.status }).toEqual({ view, status: 401 });
    }
  });

  it('never answers a page older than its workflow: a new log entry or LLM call is in the next read', async () => {
    const token = await workerToken(server);
    // room for every workflow queued so far: the one below is dispatched whatever came before it
    const worker = await TestWorker.start(server, token, 'pages', 10);
    try {
      const running = await createWorkflow(server, ann, project.id);
      await worker.dispatch(running.id, 'start');
      const entries = async (view: string) =>
        (JSON.parse((await read(`/workflows/${running.id}/${view}?limit=50`, ann)).body) as { items: unknown[] }).items
          .length;
      expect(await entries('log')).toBe(0);
      expect(await entries('llm-calls')).toBe(0);
      for (let seq = 1; seq <= 3; seq++) {
        expect(await worker.store(running.id, seq, logEntry(`line ${seq}`))).toMatchObject({ type: 'ack' });
        expect(await entries('log')).toBe(seq);
      }
      const call: LlmCallUpdateData = {
        phase: 'executing',
        model: 'm',
        prompt_tokens: 1,
        completion_tokens: 1,
        latency_ms: 1,
        step_index: 0,
      };
      expect(await worker.store(running.id, 4, { kind: 'llm_call', data: call })).toMatchObject({ type: 'ack' });
      expect(await entries('llm-calls')).toBe(1);
    } finally {
      worker.close();
    }
  });

  it('keeps pages in a cache bounded by bytes: the least recently used are read afresh', async () => {
    const logged = await createWorkflow(server, ann, project.id);
    await server.deps.db.executionLogEntry.createMany({
      data: Array.from({ length: 60 }, (_, i) => ({
        workflow_id: logged.id,
        seq: i + 1,
        tool_name: 'run_command',
        tool_input: { command: 'make' },
        output: `ok ${i + 1}`,
      })),
    });
    const first = `/workflows/${logged.id}/log?limit=1`;
    const output = async (path: string) =>
      (JSON.parse((await read(path, ann)).body) as { items: { output: string }[] }).items[0]!.output;
    expect(await output(first)).toBe('ok 1');
    // A change no stamp can see (nothing writes a log entry twice): the cached page is answered as it was.
    await server.deps.db.executionLogEntry.updateMany({
      where: { workflow_id: logged.id, seq: 1 },
      data: { output: 'changed' },
    });
    expect(await output(first)).toBe('ok 1');
    for (let seq = 1; seq < 60; seq++) await read(`/workflows/${logged.id}/log?limit=1&cursor=${cursor(seq)}`, ann);
    expect(pages.calculatedSize).toBeLessThanOrEqual(16 * 1024);
    expect(pages.size).toBeLessThan(60);
    expect(await output(first)).toBe('changed');
  });
});
