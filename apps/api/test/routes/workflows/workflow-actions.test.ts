import type { WorkflowStatus } from '@svc/protocol';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import {
  body,
  captureEvents,
  createProject,
  createWorkflow,
  recordingSteering,
  storeSnapshot,
} from '../../support/fixtures';

const PLAN = {
  phase: 'executing',
  current_step: 0,
  steps: [{ title: 'Scaffold', description: 'create the app', status: 'running' }],
};

describe.each(TEST_PROVIDERS)('workflow actions on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let project: { id: string };
  const dispatcher = recordingSteering();
  beforeAll(async () => {
    server = await startTestServer(provider, {}, { steering: dispatcher });
    ann = await server.login('ann');
    project = await createProject(server, ann);
  });
  beforeEach(() => dispatcher.reset());
  afterAll(async () => server?.close());

  /** A workflow in `status` (as the worker update path would have left it), optionally with a snapshot. */
  async function workflowIn(
    status: WorkflowStatus,
    extra: { question?: string; error?: string; snapshot?: boolean } = {},
  ) {
    const workflow = await createWorkflow(server, ann, project.id);
    await server.deps.db.workflow.update({
      where: { id: workflow.id },
      data: { status, question: extra.question ?? null, error: extra.error ?? null },
    });
    if (extra.snapshot) await storeSnapshot(server.deps.db, workflow.id, 1, PLAN);
    dispatcher.calls.length = 0;
    return workflow;
  }

  const act = (id: string, action: string, json?: unknown) =>
    server.request(`/svc/api/workflows/${id}/${action}`, { method: 'POST', as: ann, json });
  const statusOf = async (id: string) => (await server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).status;
  /** The events after the workflow's creation (its first event, the `created` action). */
  const storedEvents = async (id: string) =>
    (await server.deps.events.since({ id, project_id: project.id }, 1)).map((e) => [e.type, e.data]);
  const annActor = async () => {
    const user = await server.deps.db.user.findUniqueOrThrow({ where: { login: 'ann' } });
    return { id: user.id, login: user.login, name: user.name };
  };
  const action = async (name: string, message: string | null = null, revision = 0) => [
    'workflow_action',
    { action: name, actor: await annActor(), message, revision },
  ];

  it('answer: resumes a waiting workflow, clears the question, tells the worker and the browsers', async () => {
    const workflow = await workflowIn('waiting_user', { question: 'Which port?' });
    const { events, stop } = captureEvents(server);
    const res = await act(workflow.id, 'answer', { answer: '8080\nplease' });
    stop();
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ status: 'running', question: null });
    expect(dispatcher.calls).toEqual([['answer', workflow.id, '8080\nplease']]);
    expect(await storedEvents(workflow.id)).toEqual([
      ['workflow_status', { status: 'running', question: null }],
      await action('answered', '8080\nplease'),
    ]);
    expect(events.map((e) => e.type)).toEqual(['workflow_status', 'project_changed', 'workflow_action']);
    expect(events[1]!.data).toEqual({ change: 'workflow_updated', workflow_id: workflow.id });
  });

  it.each(['pending', 'running', 'completed'] as const)(
    'answer: 409 when the workflow is %s, nothing changes',
    async (status) => {
      const workflow = await workflowIn(status);
      const res = await act(workflow.id, 'answer', { answer: 'yes' });
      expect(res.status).toBe(409);
      expect((await body(res)).error.code).toBe('conflict');
      expect(await statusOf(workflow.id)).toBe(status);
      expect(dispatcher.calls).toEqual([]);
      expect(await storedEvents(workflow.id)).toEqual([]);
    },
  );

  it('answer: only one of two simultaneous answers wins', async () => {
    const workflow = await workflowIn('waiting_user', { question: 'Which port?' });
    const results = await Promise.all([
      act(workflow.id, 'answer', { answer: 'a' }),
      act(workflow.id, 'answer', { answer: 'b' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(dispatcher.calls).toHaveLength(1);
  });

  it('feedback: passes the message on for a running workflow that has a plan', async () => {
    const workflow = await workflowIn('running', { snapshot: true });
    const res = await act(workflow.id, 'feedback', { message: 'Also add tests' });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ status: 'running', plan_revision: 1 });
    expect(dispatcher.calls).toEqual([['feedback', workflow.id, 'Also add tests']]);
    expect(await storedEvents(workflow.id)).toEqual([await action('feedback', 'Also add tests', 1)]);
    const again = await act(workflow.id, 'feedback', { message: 'And docs' });
    expect(await body(again)).toMatchObject({ plan_revision: 2 });
  });

  it('feedback: re-queues a completed workflow so a worker revises the plan', async () => {
    const workflow = await workflowIn('completed', { snapshot: true });
    const res = await act(workflow.id, 'feedback', { message: 'Make it blue' });
    expect(await body(res)).toMatchObject({ status: 'pending', plan_revision: 1, finished_at: null });
    expect(await storedEvents(workflow.id)).toEqual([
      ['workflow_status', { status: 'pending', error: null }],
      await action('feedback', 'Make it blue', 1),
    ]);
    expect(dispatcher.calls).toEqual([['feedback', workflow.id, 'Make it blue']]);
  });

  it.each([
    ['waiting for an answer', 'waiting_user', true],
    ['cancelled', 'cancelled', true],
    ['without a plan yet', 'planning', false],
  ] as const)('feedback: 409 when %s', async (_name, status, snapshot) => {
    const workflow = await workflowIn(status, { snapshot });
    expect((await act(workflow.id, 'feedback', { message: 'x' })).status).toBe(409);
    expect(await statusOf(workflow.id)).toBe(status);
    expect(dispatcher.calls).toEqual([]);
  });

  it.each(['pending', 'planning', 'running', 'waiting_user'] as const)(
    'cancel: stops a %s workflow',
    async (status) => {
      const workflow = await workflowIn(status, { question: status === 'waiting_user' ? 'q?' : undefined });
      const res = await act(workflow.id, 'cancel');
      expect(res.status).toBe(200);
      expect(await body(res)).toMatchObject({ status: 'cancelled', question: null });
      expect(dispatcher.calls).toEqual([['cancel', workflow.id]]);
      expect(await storedEvents(workflow.id)).toEqual([
        ['workflow_status', { status: 'cancelled', question: null }],
        await action('cancelled'),
      ]);
    },
  );

  it.each(['completed', 'failed', 'cancelled'] as const)('cancel: 409 when already %s', async (status) => {
    const workflow = await workflowIn(status);
    expect((await act(workflow.id, 'cancel')).status).toBe(409);
    expect(await statusOf(workflow.id)).toBe(status);
  });

  it.each(['failed', 'cancelled'] as const)('retry: re-queues a %s workflow and clears its error', async (status) => {
    const workflow = await workflowIn(status, { error: 'worker crashed' });
    const res = await act(workflow.id, 'retry', {});
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ status: 'pending', error: null });
    expect(dispatcher.calls).toEqual([['retry', workflow.id]]);
    expect(await storedEvents(workflow.id)).toEqual([
      ['workflow_status', { status: 'pending', question: null, error: null }],
      await action('retried'),
    ]);
  });

  it.each(['pending', 'running', 'completed'] as const)('retry: 409 when %s', async (status) => {
    const workflow = await workflowIn(status);
    expect((await act(workflow.id, 'retry')).status).toBe(409);
    expect(await statusOf(workflow.id)).toBe(status);
  });

  it('keeps the new status when the dispatcher fails; the stored status is what workers follow', async () => {
    dispatcher.behaviour = async () => {
      throw new Error('socket closed');
    };
    const workflow = await workflowIn('running');
    expect((await act(workflow.id, 'cancel')).status).toBe(200);
    expect(await statusOf(workflow.id)).toBe('cancelled');
  });

  it('refuses bodies with unknown fields or blank text', async () => {
    const workflow = await workflowIn('waiting_user', { question: 'q?' });
    expect((await act(workflow.id, 'answer', { answer: ' \n ' })).status).toBe(400);
    expect((await act(workflow.id, 'answer', { answer: 'x', force: true })).status).toBe(400);
    expect((await act(workflow.id, 'cancel', { reason: 'x' })).status).toBe(400);
    expect(await statusOf(workflow.id)).toBe('waiting_user');
  });
});
