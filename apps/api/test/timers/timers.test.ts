import { eventually, snapshot, TestWorker } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { body, createWorkflow } from '../support/fixtures';
import { workerSuite } from '../ws/clients';

describe.each(TEST_PROVIDERS)('timers on %s', (provider) => {
  const suite = workerSuite(provider);

  /** A worker runs a workflow to its first step, sets a timer through REST with its token, and pauses. */
  async function paused(seconds: number, reason: string): Promise<{ worker: TestWorker; id: string; timerId: string }> {
    const worker = await TestWorker.start(suite.server, suite.token, `timer-${suite.workers.length}-${Date.now()}`);
    suite.workers.push(worker);
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const { last_seq } = await worker.dispatch(id, 'start');
    await worker.store(id, last_seq + 1, snapshot('executing', 0, ['running', 'pending']));
    const res = await suite.server.request(`/svc/api/workflows/${id}/timers`, {
      method: 'POST',
      as: suite.token,
      json: { seconds, reason },
    });
    expect(res.status).toBe(201);
    const timer = await body(res);
    expect(timer).toEqual({
      id: expect.any(String),
      workflow_id: id,
      fire_at: expect.any(String),
      reason,
      status: 'pending',
    });
    await worker.store(id, last_seq + 2, { kind: 'status', data: { status: 'pending' } });
    expect((await suite.server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).assigned_worker_id).toBeNull();
    return { worker, id, timerId: timer.id };
  }

  it('holds the workflow back while the timer is pending and resumes it with the reason when it fires', async () => {
    // The scheduler waits while the hold-back is checked, so the timer is surely still pending then.
    const { timers: scheduler, dispatcher } = suite.server.runtime.live;
    await scheduler.stop();
    let worker: TestWorker, id: string, timerId: string;
    try {
      ({ worker, id, timerId } = await paused(1, 'wait for the CI run'));
      // A dispatch round after the workflow went back to the queue: it would have handed it out.
      await dispatcher.pump();
      expect(await suite.server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).toMatchObject({
        status: 'pending',
        assigned_worker_id: null,
      });
      expect((await suite.server.deps.db.timer.findUniqueOrThrow({ where: { id: timerId } })).status).toBe('pending');
      expect(worker.inbox.ofType('dispatch').filter((d) => d.workflow_id === id && d.action === 'resume')).toHaveLength(
        0,
      );
    } finally {
      scheduler.start();
    }
    const resume = await worker.dispatch(id, 'resume', 15_000);
    expect(resume).toMatchObject({ message: 'wait for the CI run', snapshot: { phase: 'executing', current_step: 0 } });
    const timers = await body(await suite.server.request(`/svc/api/workflows/${id}/timers`, { as: suite.alice }));
    expect(timers).toEqual([expect.objectContaining({ id: timerId, status: 'fired' })]);
  });

  it('makes the workflow dispatchable at once when its timer is deleted, and refuses a second delete', async () => {
    const { worker, id, timerId } = await paused(3600, 'nightly build');
    expect(
      (await suite.server.request(`/svc/api/timers/${timerId}`, { method: 'DELETE', as: suite.alice })).status,
    ).toBe(204);
    expect(await worker.dispatch(id, 'resume')).toMatchObject({ workflow_id: id });
    const again = await suite.server.request(`/svc/api/timers/${timerId}`, { method: 'DELETE', as: suite.alice });
    expect(again.status).toBe(409);
    expect((await suite.server.deps.db.timer.findUniqueOrThrow({ where: { id: timerId } })).status).toBe('cancelled');
  });

  it('validates timer requests and hides them from non-members', async () => {
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const post = (json: unknown, as = suite.alice) =>
      suite.server.request(`/svc/api/workflows/${id}/timers`, { method: 'POST', as, json });
    for (const bad of [
      { seconds: 0, reason: 'x' },
      { seconds: 10 },
      { seconds: 10, reason: '   ' },
      { seconds: 1.5, reason: 'x' },
      { seconds: 10, reason: 'x', extra: 1 },
    ]) {
      const res = await post(bad);
      expect(res.status).toBe(400);
      expect((await body(res)).error.code).toBe('invalid_input');
    }
    expect((await body(await post({ seconds: 10, reason: 'x', extra: 1 }))).error.message).toMatch(
      /body\.extra: unknown field/,
    );
    const mallory = await suite.server.login('mallory');
    expect((await post({ seconds: 10, reason: 'x' }, mallory)).status).toBe(404);
    expect((await suite.server.request(`/svc/api/workflows/${id}/timers`, { as: mallory })).status).toBe(404);
    const created = await body(await post({ seconds: 60, reason: 'member timer' }));
    expect(
      (await suite.server.request(`/svc/api/timers/${created.id}`, { method: 'DELETE', as: mallory })).status,
    ).toBe(404);
    expect((await suite.server.request('/svc/api/timers/nope', { method: 'DELETE', as: suite.alice })).status).toBe(
      404,
    );
    expect(await suite.server.deps.db.timer.count({ where: { workflow_id: id } })).toBe(1);
    // A cancelled workflow takes no new timers, and its pending ones are cancelled with it.
    expect(
      (await suite.server.request(`/svc/api/workflows/${id}/cancel`, { method: 'POST', as: suite.alice, json: {} }))
        .status,
    ).toBe(200);
    await eventually(
      async () =>
        (await suite.server.deps.db.timer.findUniqueOrThrow({ where: { id: created.id } })).status === 'cancelled',
    );
    expect((await post({ seconds: 10, reason: 'late' })).status).toBe(409);
  });
});
