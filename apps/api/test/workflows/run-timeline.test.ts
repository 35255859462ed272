import { EventStream, snapshot, TestWorker } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { body, createWorkflow } from '../support/fixtures';
import { workerSuite } from '../ws/clients';

// Issue 14: a run's times, its worker, its plan's step times and the actions people took, as a real
// worker's updates and the REST actions leave them.
describe.each(TEST_PROVIDERS)('run timeline on %s', (provider) => {
  const suite = workerSuite(provider);
  const get = async (path: string, headers: Record<string, string> = {}) =>
    suite.server.request(`/svc/api${path}`, { as: suite.alice, headers });
  const act = (id: string, action: string, json?: unknown) =>
    suite.server.request(`/svc/api/workflows/${id}/${action}`, { method: 'POST', as: suite.alice, json });
  const workflowOf = async (id: string) => body(await get(`/workflows/${id}`));
  /** The plan, answered alike to a request with an If-None-Match that does not match (byte for byte). */
  const planOf = async (id: string) => {
    const plain = await get(`/workflows/${id}/plan`);
    const conditional = await get(`/workflows/${id}/plan`, { 'if-none-match': '"other"' });
    const text = await plain.text();
    expect(text).toBe(await conditional.text());
    return JSON.parse(text) as { status: string; started_at: string | null; finished_at: string | null }[];
  };

  async function running(name: string): Promise<{ worker: TestWorker; id: string; seq: { next: number } }> {
    const worker = await suite.start(name);
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const { last_seq } = await worker.dispatch(id, 'start');
    return { worker, id, seq: { next: last_seq + 1 } };
  }

  it('stamps started_at when a worker first reports work, finished_at at the end, and clears it on feedback', async () => {
    const { worker, id, seq } = await running('times');
    const queued = await workflowOf(id);
    expect(queued).toMatchObject({ status: 'pending', started_at: null, finished_at: null, worker_name: 'times' });
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'planning' } });
    const started = await workflowOf(id);
    expect(started.started_at).toEqual(expect.any(String));
    expect(Date.parse(started.started_at)).toBeGreaterThanOrEqual(Date.parse(queued.created_at));
    await worker.store(id, seq.next++, snapshot('executing', 0, ['running', 'pending']));
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'running' } });
    await worker.store(id, seq.next++, snapshot('completed', null, ['done', 'done']));
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'completed' } });
    const finished = await workflowOf(id);
    expect(finished).toMatchObject({ status: 'completed', started_at: started.started_at, worker_name: 'times' });
    expect(Date.parse(finished.finished_at)).toBeGreaterThanOrEqual(Date.parse(started.started_at));

    const revised = await act(id, 'feedback', { message: 'Make it blue' });
    expect(revised.status).toBe(200);
    expect(await body(revised)).toMatchObject({
      status: 'pending',
      finished_at: null,
      started_at: started.started_at,
      plan_revision: 1,
    });
  });

  it('stamps finished_at on cancel and clears it on retry', async () => {
    const { worker, id, seq } = await running('cancelled');
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'running' } });
    const cancelled = await body(await act(id, 'cancel'));
    expect(cancelled).toMatchObject({ status: 'cancelled', finished_at: expect.any(String) });
    // A late worker update cannot move it or its times.
    const refused = await worker.store(id, seq.next++, { kind: 'status', data: { status: 'completed' } });
    expect(refused.type).toBe('ack');
    expect(await workflowOf(id)).toMatchObject({ status: 'cancelled', finished_at: cancelled.finished_at });
    expect(await body(await act(id, 'retry'))).toMatchObject({ status: 'pending', finished_at: null });
  });

  it('times plan steps from their events and marks the step a failure interrupted', async () => {
    const { worker, id, seq } = await running('failing');
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'running' } });
    await worker.store(id, seq.next++, snapshot('executing', 0, ['running', 'pending', 'pending']));
    await worker.store(id, seq.next++, snapshot('executing', 1, ['done', 'running', 'pending']));
    const live = await planOf(id);
    expect(live.map((s) => s.status)).toEqual(['done', 'running', 'pending']);
    expect(live[0]!.started_at).toEqual(expect.any(String));
    expect(Date.parse(live[0]!.finished_at!)).toBeGreaterThanOrEqual(Date.parse(live[0]!.started_at!));
    expect(live[1]).toMatchObject({ started_at: live[0]!.finished_at, finished_at: null });
    expect(live[2]).toMatchObject({ started_at: null, finished_at: null });
    expect(live.some((s) => 'interrupted' in s)).toBe(false);

    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'failed', error: 'disk full' } });
    const failed = await planOf(id);
    expect(failed.map((s) => s.status)).toEqual(['done', 'pending', 'pending']);
    expect(failed[1]).toEqual({ ...live[1], status: 'pending', interrupted: 'failed' });
    expect(failed.filter((s) => 'interrupted' in s)).toHaveLength(1);
  });

  it('after feedback the plan keeps its done steps done until the revised plan says what runs again', async () => {
    const { worker, id, seq } = await running('revised');
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'running' } });
    await worker.store(id, seq.next++, snapshot('executing', 0, ['running', 'pending']));
    await worker.store(id, seq.next++, snapshot('completed', null, ['done', 'done']));
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'completed' } });
    expect((await planOf(id)).map((s) => s.status)).toEqual(['done', 'done']);

    const progressOf = async () => {
      const page = await body(await get(`/projects/${suite.projectId}/workflows`));
      return page.items.find((w: { id: string }) => w.id === id).progress;
    };
    expect(await progressOf()).toEqual({ done: 2, total: 2 });

    expect((await act(id, 'feedback', { message: 'Add a step' })).status).toBe(200);
    expect((await planOf(id)).map((s) => s.status)).toEqual(['done', 'done']);
    expect(await progressOf()).toEqual({ done: 2, total: 2 });
    // The worker (its heartbeat says it runs nothing) takes it up again and says it is running before
    // its revised plan is ready.
    worker.send({ type: 'heartbeat', active_workflows: [] });
    const { last_seq } = await worker.dispatch(id, 'feedback');
    seq.next = last_seq + 1;
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'running' } });
    expect((await planOf(id)).map((s) => s.status)).toEqual(['done', 'done']);
    await worker.store(id, seq.next++, snapshot('executing', 2, ['done', 'done', 'running']));
    expect((await planOf(id)).map((s) => s.status)).toEqual(['done', 'done', 'running']);
    expect(await progressOf()).toEqual({ done: 2, total: 3 });
  });

  it('stores who did what as replayable workflow_action events, also on the event stream', async () => {
    const { worker, id, seq } = await running('actions');
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'waiting_user', question: 'Which port?' } });
    expect((await act(id, 'answer', { answer: '8080' })).status).toBe(200);
    await worker.store(id, seq.next++, snapshot('executing', 0, ['running']));
    expect((await act(id, 'feedback', { message: 'Use 9090' })).status).toBe(200);
    expect((await act(id, 'cancel')).status).toBe(200);
    expect((await act(id, 'retry')).status).toBe(200);

    const alice = await suite.server.deps.db.user.findUniqueOrThrow({ where: { login: 'alice' } });
    const actor = { id: alice.id, login: 'alice', name: alice.name };
    const expected = [
      { action: 'created', actor, message: null, revision: 0 },
      { action: 'answered', actor, message: '8080', revision: 0 },
      { action: 'feedback', actor, message: 'Use 9090', revision: 1 },
      { action: 'cancelled', actor, message: null, revision: 1 },
      { action: 'retried', actor, message: null, revision: 1 },
    ];
    const stream = await EventStream.open(suite.server.url, `/svc/api/workflows/${id}/events?since_seq=0`, suite.alice);
    try {
      await stream.next((e) => e.event === 'subscribed');
      const actions = stream.events.filter((e) => e.event === 'workflow_action');
      expect(actions.map((e) => JSON.parse(e.data).data)).toEqual(expected);
      // Each has its seq like any stored event: a client resuming after the feedback gets the rest.
      const feedbackSeq = Number(actions[2]!.lastEventId);
      const replayed = await suite.server.deps.events.since({ id, project_id: suite.projectId }, feedbackSeq);
      expect(replayed.filter((e) => e.type === 'workflow_action').map((e) => e.data)).toEqual(expected.slice(3));
    } finally {
      stream.close();
    }
    expect((await workflowOf(id)).plan_revision).toBe(1);
  });

  it('counts every one of simultaneous feedbacks in the plan revision', async () => {
    const { worker, id, seq } = await running('many-feedbacks');
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'running' } });
    await worker.store(id, seq.next++, snapshot('executing', 0, ['running']));
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((message) => act(id, 'feedback', { message })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await workflowOf(id)).plan_revision).toBe(4);
    const revisions = (
      await suite.server.deps.db.event.findMany({ where: { workflow_id: id, type: 'workflow_action' } })
    )
      .map((e) => e.data as { revision: number; action: string })
      .filter((d) => d.action === 'feedback')
      .map((d) => d.revision)
      .sort();
    expect(revisions).toEqual([1, 2, 3, 4]);
  });
});
