import type { WorkflowStatus } from '@svc/protocol';
import { queuedPage } from '../../../src/dispatch/queue';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { body, createProject, createWorkflow, recordingSteering, storeSnapshot } from '../../support/fixtures';

const PLAN = {
  phase: 'executing',
  current_step: 0,
  steps: [{ title: 'Scaffold', description: 'create the app', status: 'running' }],
};

describe.each(TEST_PROVIDERS)('pause and resume on %s (decision 0039)', (provider) => {
  let server: TestServer;
  let ann: string;
  let eve: string;
  let project: { id: string };
  const dispatcher = recordingSteering();
  beforeAll(async () => {
    server = await startTestServer(provider, {}, { steering: dispatcher });
    ann = await server.login('ann');
    eve = await server.login('eve');
    project = await createProject(server, ann);
  });
  beforeEach(() => dispatcher.reset());
  afterAll(async () => server?.close());

  /** A workflow in `status` (as the worker update path would have left it), optionally with a snapshot. */
  async function workflowIn(status: WorkflowStatus, snapshot = false) {
    const workflow = await createWorkflow(server, ann, project.id);
    await server.deps.db.workflow.update({ where: { id: workflow.id }, data: { status } });
    if (snapshot) await storeSnapshot(server.deps.db, workflow.id, 1, PLAN);
    dispatcher.calls.length = 0;
    return workflow;
  }

  const act = (id: string, action: string, json?: unknown, as = ann) =>
    server.request(`/svc/api/workflows/${id}/${action}`, { method: 'POST', as, json });
  const statusOf = async (id: string) => (await server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).status;
  const actions = async (id: string) =>
    (await server.deps.events.since({ id, project_id: project.id }, 1))
      .filter((e) => e.type === 'workflow_action')
      .map((e) => [(e.data as { action: string }).action, (e.data as { message: string | null }).message]);

  it.each(['running', 'planning'] as const)(
    'pause of a %s workflow records the request and asks its worker; the status stays until the worker pauses',
    async (status) => {
      const workflow = await workflowIn(status);
      const res = await act(workflow.id, 'pause', { interrupt: true });
      expect(res.status).toBe(200);
      expect(await body(res)).toMatchObject({ status });
      expect(dispatcher.calls).toEqual([['pause', workflow.id, 'true']]);
      expect(await actions(workflow.id)).toEqual([['pause_requested', 'interrupt']]);
    },
  );

  it('pause without a body lets the running command finish', async () => {
    const workflow = await workflowIn('running');
    expect((await act(workflow.id, 'pause')).status).toBe(200);
    expect(dispatcher.calls).toEqual([['pause', workflow.id, 'false']]);
    expect(await actions(workflow.id)).toEqual([['pause_requested', null]]);
  });

  it.each(['completed', 'failed', 'cancelled', 'pending', 'waiting_user', 'paused'] as const)(
    'pause of a %s workflow is 409 and changes nothing',
    async (status) => {
      const workflow = await workflowIn(status);
      const res = await act(workflow.id, 'pause', {});
      expect(res.status).toBe(409);
      expect((await body(res)).error.code).toBe('conflict');
      expect(await statusOf(workflow.id)).toBe(status);
      expect(dispatcher.calls).toEqual([]);
      expect(await actions(workflow.id)).toEqual([]);
    },
  );

  it.each([
    [true, 'running'],
    [false, 'planning'],
  ] as const)(
    'resume of a paused workflow (plan stored: %s) goes back to %s and tells the worker',
    async (plan, to) => {
      const workflow = await workflowIn('paused', plan);
      const res = await act(workflow.id, 'resume', {});
      expect(res.status).toBe(200);
      expect(await body(res)).toMatchObject({ status: to });
      expect(await statusOf(workflow.id)).toBe(to);
      expect(dispatcher.calls).toEqual([['resumePaused', workflow.id]]);
      expect(await actions(workflow.id)).toEqual([['resumed', null]]);
    },
  );

  it.each(['running', 'planning', 'pending', 'completed', 'cancelled'] as const)(
    'resume of a %s workflow is 409 and changes nothing',
    async (status) => {
      const workflow = await workflowIn(status, true);
      const res = await act(workflow.id, 'resume');
      expect(res.status).toBe(409);
      expect(await statusOf(workflow.id)).toBe(status);
      expect(dispatcher.calls).toEqual([]);
    },
  );

  it('a paused workflow can be cancelled, not given feedback', async () => {
    const workflow = await workflowIn('paused', true);
    expect((await act(workflow.id, 'feedback', { message: 'faster' })).status).toBe(409);
    const res = await act(workflow.id, 'cancel', {});
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ status: 'cancelled' });
  });

  it('a paused workflow is not dispatched: the queue leaves it out until it is resumed', async () => {
    const workflow = await workflowIn('paused', true);
    expect((await queuedPage(server.runtime.dbHandle.reader, provider)).map((w) => w.id)).not.toContain(workflow.id);
    await act(workflow.id, 'resume');
    expect((await queuedPage(server.runtime.dbHandle.reader, provider)).map((w) => w.id)).toContain(workflow.id);
  });

  it('is 404 for someone who is not a member, and nothing changes', async () => {
    const workflow = await workflowIn('running');
    const paused = await workflowIn('paused');
    for (const [id, action] of [
      [workflow.id, 'pause'],
      [paused.id, 'resume'],
    ] as const) {
      const res = await act(id, action, {}, eve);
      expect(res.status).toBe(404);
    }
    expect([await statusOf(workflow.id), await statusOf(paused.id)]).toEqual(['running', 'paused']);
    expect(dispatcher.calls).toEqual([]);
  });

  it('refuses unknown fields and a non-boolean interrupt with 400', async () => {
    const workflow = await workflowIn('running');
    for (const json of [{ interrupt: 'yes' }, { interrupt: true, now: 1 }]) {
      const res = await act(workflow.id, 'pause', json);
      expect(res.status).toBe(400);
    }
    expect((await act(workflow.id, 'resume', { x: 1 })).status).toBe(400);
    expect(await actions(workflow.id)).toEqual([]);
  });
});
