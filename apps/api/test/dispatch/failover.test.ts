import { eventually, logEntry, snapshot, TestWorker } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { createWorkflow } from '../support/fixtures';
import { workerSuite } from '../ws/clients';

describe.each(TEST_PROVIDERS)('a lost worker hands its workflows on, on %s', (provider) => {
  const suite = workerSuite(provider, { WORKER_HEARTBEAT_SECONDS: '1', WORKER_OFFLINE_AFTER_SECONDS: '2' });
  const start = suite.start;

  /** `worker` runs a new workflow up to step 2 of 3 (snapshot, log, snapshot stored and acked). */
  async function midway(worker: TestWorker): Promise<string> {
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const { last_seq: last } = await worker.dispatch(id, 'start');
    await worker.store(id, last + 1, snapshot('executing', 0, ['running', 'pending', 'pending']));
    await worker.store(id, last + 2, logEntry('step one done'));
    await worker.store(id, last + 3, snapshot('executing', 1, ['done', 'running', 'pending']));
    return id;
  }

  /** Heartbeats while the test runs: a worker silent for 2 s counts as gone, and a busy machine is slow. */
  const keepBeating = (worker: TestWorker) => {
    const beat = setInterval(() => worker.send({ type: 'heartbeat' }), 500);
    return () => clearInterval(beat);
  };

  it('resumes on another worker, from the latest snapshot, when the socket of the first is cut', async () => {
    const first = await start('cut-1');
    const stopFirst = keepBeating(first);
    const id = await midway(first);
    const stored = (await suite.server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).last_update_seq;
    const second = await start('cut-2');
    const stopSecond = keepBeating(second);
    expect(second.inbox.ofType('dispatch').filter((d) => d.workflow_id === id)).toHaveLength(0);
    stopFirst();
    first.close();
    const resume = await second.dispatch(id, 'resume');
    expect(resume).toMatchObject({
      project_id: suite.projectId,
      last_seq: stored,
      snapshot: {
        phase: 'executing',
        current_step: 1,
        steps: [{ status: 'done' }, { status: 'running' }, { status: 'pending' }],
      },
    });
    expect((await suite.server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).assigned_worker_id).toBe(
      second.id,
    );
    // The new holder continues after last_seq; the old one may no longer write.
    expect((await second.store(id, stored + 1, logEntry('step two'))).type).toBe('ack');
    stopSecond();
    second.close();
  }, 60_000);

  it('takes the workflow back when heartbeats stop although the socket stays open', async () => {
    const silent = await start('silent');
    const id = await midway(silent);
    const alive = await start('alive');
    const stopAlive = keepBeating(alive);
    try {
      const resume = await alive.dispatch(id, 'resume');
      expect(resume.snapshot).toMatchObject({ current_step: 1 });
      expect((await silent.inbox.whenClosed()).code).toBe(4408);
      const row = await suite.server.deps.db.worker.findUniqueOrThrow({ where: { id: silent.id } });
      expect(row.status).toBe('offline');
      // What the silent worker still sends is refused, not stored.
      const events = await suite.server.deps.db.event.count({ where: { workflow_id: id } });
      expect(await suite.server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).toMatchObject({
        assigned_worker_id: alive.id,
      });
      expect(await suite.server.deps.db.event.count({ where: { workflow_id: id } })).toBe(events);
    } finally {
      stopAlive();
      alive.close();
    }
  }, 60_000);

  it('gives a restarted worker its workflow again as a resume when its first heartbeat says it no longer runs it', async () => {
    const before = await start('phoenix');
    const id = await midway(before);
    // The worker process restarts under the same name before the server noticed the old socket died.
    const after = await start('phoenix');
    after.send({ type: 'heartbeat', active_workflows: [] });
    const stopAfter = keepBeating(after);
    expect(await after.dispatch(id, 'resume')).toMatchObject({ snapshot: { current_step: 1 } });
    await eventually(
      async () =>
        (await suite.server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).assigned_worker_id === after.id,
    );
    stopAfter();
    before.close();
    after.close();
  }, 60_000);
});
