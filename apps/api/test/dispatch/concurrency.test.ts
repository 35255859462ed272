import type { Message, TestWorker } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { addMember, body, createProject } from '../support/fixtures';
import { workerSuite } from '../ws/clients';

/** Concurrency keys, the project's `max_running` and priority (issue 23, decision 0037). */
describe.each(TEST_PROVIDERS)('concurrency and priority on %s', (provider) => {
  const suite = workerSuite(provider);
  /** Waits for the dispatch round in progress and one more: whatever they would hand out is handed out. */
  const dispatchRound = () => suite.server.runtime.live.dispatcher.pump();
  const row = (id: string) => suite.server.deps.db.workflow.findUniqueOrThrow({ where: { id } });

  async function create(projectId: string, extra: Record<string, unknown>, requirement = 'build it'): Promise<string> {
    const res = await suite.server.request(`/svc/api/projects/${projectId}/workflows`, {
      method: 'POST',
      as: suite.alice,
      json: { requirement, ...extra },
    });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
    return (await body(res)).id as string;
  }

  async function setLimit(projectId: string, maxRunning: number | null): Promise<Message> {
    const res = await suite.server.request(`/svc/api/projects/${projectId}`, {
      method: 'PATCH',
      as: suite.alice,
      json: { max_running: maxRunning },
    });
    expect(res.status).toBe(200);
    return body(res);
  }

  /** The worker finishes the run it was handed (`completed` after the dispatch's last seq). */
  async function finish(worker: TestWorker, id: string, dispatch: Message): Promise<void> {
    await worker.store(id, dispatch.last_seq + 1, { kind: 'status', data: { status: 'completed' } });
  }

  const starts = (worker: TestWorker) =>
    worker.inbox
      .ofType('dispatch')
      .filter((d) => d.action === 'start')
      .map((d) => d.workflow_id as string);

  it('runs three runs on one key one at a time, in creation order, with room for all of them', async () => {
    const { id: projectId } = await createProject(suite.server, suite.alice, 'fifo');
    const worker = await suite.start('roomy', 3);
    const ids = [];
    for (const name of ['first', 'second', 'third'])
      ids.push(await create(projectId, { concurrency_key: 'main' }, name));
    const [a, b, c] = ids as [string, string, string];
    expect(await row(a)).toMatchObject({ concurrency_key: 'main', concurrency_mode: 'queue', priority: 0 });

    const startA = await worker.dispatch(a, 'start');
    await dispatchRound();
    expect(starts(worker)).toEqual([a]);
    expect(await row(b)).toMatchObject({ status: 'pending', assigned_worker_id: null });

    await finish(worker, a, startA);
    const startB = await worker.dispatch(b, 'start');
    await dispatchRound();
    expect(starts(worker)).toEqual([a, b]);
    expect(await row(c)).toMatchObject({ status: 'pending', assigned_worker_id: null });

    await finish(worker, b, startB);
    await finish(worker, c, await worker.dispatch(c, 'start'));
    expect(starts(worker)).toEqual([a, b, c]);
    // Another key, or none, is not held back by the key.
    const free = await create(projectId, {});
    await worker.dispatch(free, 'start');
  });

  it('a cancel_in_progress run cancels the older runs of its key, saying why, and then runs', async () => {
    const { id: projectId } = await createProject(suite.server, suite.alice, 'cancel');
    const worker = await suite.start('busy', 2);
    const older = await create(projectId, { concurrency_key: 'release' }, 'older');
    await worker.dispatch(older, 'start');
    const waiting = await create(projectId, { concurrency_key: 'release' }, 'waiting');
    const other = await create(projectId, { concurrency_key: 'other' }, 'other key');
    await worker.dispatch(other, 'start');

    const newer = await create(projectId, { concurrency_key: 'release', concurrency_mode: 'cancel_in_progress' });
    // The running one is told to stop; the newer run takes the key.
    await worker.dispatch(older, 'cancel');
    expect(await row(older)).toMatchObject({ status: 'cancelled' });
    expect(await row(waiting)).toMatchObject({ status: 'cancelled' });
    expect(await row(other)).toMatchObject({ status: 'pending', assigned_worker_id: worker.id });
    const newRun = await row(newer);
    const actions = await suite.server.deps.db.event.findMany({
      where: { workflow_id: older, type: 'workflow_action' },
      orderBy: { seq: 'asc' },
    });
    const cancel = actions.map((e) => e.data as Message).find((data) => data.action === 'cancelled');
    expect(cancel.message).toBe(
      `cancelled by run #${newRun.number}: concurrency key "release" cancels runs in progress`,
    );
    // `other` still holds one of the worker's two places: the newer run takes the other.
    await worker.dispatch(newer, 'start');
  });

  it('with one slot, a higher-priority run created later starts first', async () => {
    const { id: projectId } = await createProject(suite.server, suite.alice, 'priority');
    await setLimit(projectId, 1);
    const worker = await suite.start('one-slot', 3);
    const blocker = await create(projectId, {}, 'blocker');
    const startBlocker = await worker.dispatch(blocker, 'start');
    const low = await create(projectId, {}, 'low');
    const high = await create(projectId, { priority: 5 }, 'high');
    await dispatchRound();
    // The project's limit holds although the worker has room.
    expect(starts(worker)).toEqual([blocker]);

    await finish(worker, blocker, startBlocker);
    const startHigh = await worker.dispatch(high, 'start');
    await dispatchRound();
    expect(starts(worker)).toEqual([blocker, high]);
    await finish(worker, high, startHigh);
    await finish(worker, low, await worker.dispatch(low, 'start'));
    expect(starts(worker)).toEqual([blocker, high, low]);
  });

  it('a claim refused because another server held the run for a moment does not let a younger run of its project overtake it', async () => {
    const { id: projectId } = await createProject(suite.server, suite.alice, 'stale page');
    await setLimit(projectId, 1);
    const older = await create(projectId, {}, 'older');
    const younger = await create(projectId, {}, 'younger');
    const { engine } = suite.server.runtime.live;
    const realClaim = engine.claim.bind(engine);
    let raced = false;
    // Another replica claims the older run after this one read its page, and gives it back (its
    // dispatch could not be sent) before this one claims the younger run: the slot is free again.
    const claim = jest.spyOn(engine, 'claim').mockImplementation(async (workflowId, workerId) => {
      if (workflowId !== older || raced) return realClaim(workflowId, workerId);
      raced = true;
      expect(await realClaim(workflowId, workerId)).toBe(true);
      await engine.unclaim(workflowId, workerId);
      return false;
    });
    try {
      const worker = await suite.start('one-of-two-servers', 2);
      await worker.dispatch(older, 'start');
      await dispatchRound();
      expect(raced).toBe(true);
      expect(starts(worker)).toEqual([older]);
      expect(await row(younger)).toMatchObject({ status: 'pending', assigned_worker_id: null });
    } finally {
      claim.mockRestore();
    }
  });

  it('raising max_running lets waiting runs go at once; only an owner sets it', async () => {
    const { id: projectId } = await createProject(suite.server, suite.alice, 'limit');
    expect((await setLimit(projectId, 1)).max_running).toBe(1);
    const worker = await suite.start('wide', 3);
    const first = await create(projectId, {});
    await worker.dispatch(first, 'start');
    const second = await create(projectId, {});
    await dispatchRound();
    expect(await row(second)).toMatchObject({ assigned_worker_id: null });
    expect((await setLimit(projectId, null)).max_running).toBeNull();
    await worker.dispatch(second, 'start');

    await addMember(suite.server, suite.alice, projectId, 'bob');
    const refused = await suite.server.request(`/svc/api/projects/${projectId}`, {
      method: 'PATCH',
      as: await suite.server.login('bob'),
      json: { max_running: 5 },
    });
    expect(refused.status).toBe(403);
    expect((await suite.server.deps.db.project.findUniqueOrThrow({ where: { id: projectId } })).max_running).toBeNull();
  });

  it('refuses a mode without a key and an out-of-range priority, creating nothing', async () => {
    const { id: projectId } = await createProject(suite.server, suite.alice, 'bad');
    for (const json of [
      { requirement: 'x', concurrency_mode: 'queue' },
      { requirement: 'x', priority: 1001 },
      { requirement: 'x', priority: 1.5 },
      { requirement: 'x', concurrency_key: 'k', concurrency_mode: 'later' },
      { requirement: 'x', concurrency_key: '' },
    ]) {
      const res = await suite.server.request(`/svc/api/projects/${projectId}/workflows`, {
        method: 'POST',
        as: suite.alice,
        json,
      });
      expect(res.status).toBe(400);
    }
    expect(await suite.server.deps.db.workflow.count({ where: { project_id: projectId } })).toBe(0);
  });
});
