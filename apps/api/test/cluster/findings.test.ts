import type { DbHandle } from '@svc/db';
import { eventually, openBrowserSocket } from '@svc/test-kit';
import {
  CLUSTER_TIMEOUT_MS,
  createWorkflow,
  keepBeating,
  logEntry,
  openDb,
  receivedSeqs,
  receivedUpTo,
  snapshot,
  startCluster,
  startedOn,
  subscribeBrowser,
  type Cluster,
} from './cluster';

/**
 * The findings of issue 10, each on two real API replicas sharing one PostgreSQL database and data
 * directory, with the worker connected to replica A and the browser or REST call on replica B.
 */
describe('two API replicas on one PostgreSQL database', () => {
  let cluster: Cluster;
  let db: DbHandle;

  beforeAll(async () => {
    cluster = await startCluster();
    db = await openDb(cluster);
  }, CLUSTER_TIMEOUT_MS);

  afterEach(() => cluster.closeWorkers());

  afterAll(async () => {
    await db?.close();
    await cluster?.close();
  }, CLUSTER_TIMEOUT_MS);

  it(
    'a browser on B receives every live event of a workflow run through A, once and in seq order',
    async () => {
      const { a, b } = cluster;
      const { worker, id, last } = await startedOn(cluster, a, 'live-events');
      const browser = await subscribeBrowser(b, cluster.alice, id);
      const from = browser.subscribed.last_seq as number;
      const updates = 35;
      // Pipelined, like a real worker's outbox: many updates commit in few batches.
      for (let i = 1; i <= updates; i++) worker.update(id, last + i, logEntry(`line ${i}`));
      await worker.store(id, last + updates + 1, snapshot('executing', 0, ['running']));
      const { last_event_seq: lastEvent } = await db.db.workflow.findUniqueOrThrow({ where: { id } });
      await receivedUpTo(browser.inbox, id, lastEvent);
      const expected = Array.from({ length: lastEvent - from }, (_, i) => from + i + 1);
      expect(receivedSeqs(browser.inbox, id)).toEqual(expected);
      browser.close();
    },
    CLUSTER_TIMEOUT_MS,
  );

  it(
    "a project channel on B gets the status changes and notices of the project's workflows run through A",
    async () => {
      const { a, b } = cluster;
      const { ws, inbox } = await openBrowserSocket(b, cluster.alice);
      ws.send(JSON.stringify({ type: 'subscribe_project', project_id: cluster.projectId }));
      const worker = await cluster.worker(a, 'project-on-a');
      const id = await createWorkflow(cluster.aliceOn(a), cluster.projectId, 'watched by its project');
      await inbox.next((m) => m.type === 'project_changed' && m.data?.workflow_id === id);
      const { last_seq: last } = await worker.dispatch(id, 'start');
      await worker.store(id, last + 1, { kind: 'status', data: { status: 'running' } });
      expect(await inbox.next((m) => m.type === 'workflow_status' && m.workflow_id === id)).toMatchObject({
        data: { status: 'running' },
      });
      ws.terminate();
    },
    CLUSTER_TIMEOUT_MS,
  );

  it(
    'a workflow created through B goes to the idle worker connected to A',
    async () => {
      const worker = await cluster.worker(cluster.a, 'idle-on-a');
      const id = await createWorkflow(cluster.aliceOn(cluster.b), cluster.projectId, 'created on B');
      expect(await worker.dispatch(id, 'start')).toMatchObject({ requirement: 'created on B', last_seq: 0 });
    },
    CLUSTER_TIMEOUT_MS,
  );

  it(
    'a timer set through B resumes its workflow on the worker connected to A, with its reason',
    async () => {
      const { a, b } = cluster;
      const { worker, id, last } = await startedOn(cluster, a, 'timer-on-a');
      await worker.store(id, last + 1, snapshot('executing', 0, ['running', 'pending']));
      // The agent sets its timer, then pauses: the workflow waits for the timer, not for a worker.
      await cluster.aliceOn(b).json(`/workflows/${id}/timers`, { json: { seconds: 1, reason: 'check the build' } });
      await worker.store(id, last + 2, { kind: 'status', data: { status: 'pending' } });
      expect(await worker.dispatch(id, 'resume')).toMatchObject({
        message: 'check the build',
        snapshot: { phase: 'executing' },
      });
      expect(await db.db.timer.findMany({ where: { workflow_id: id }, select: { status: true } })).toEqual([
        { status: 'fired' },
      ]);
    },
    CLUSTER_TIMEOUT_MS,
  );

  it(
    'an answer sent through B reaches the worker on A, which keeps the workflow',
    async () => {
      const { a, b } = cluster;
      const { worker, id, last } = await startedOn(cluster, a, 'asker-on-a');
      const stop = keepBeating(worker, () => [id]);
      await worker.store(id, last + 1, snapshot('executing', 0, ['running', 'pending']));
      await worker.store(id, last + 2, { kind: 'status', data: { status: 'waiting_user', question: 'Which port?' } });
      await cluster.aliceOn(b).json(`/workflows/${id}/answer`, { json: { answer: '8080' } });
      expect(await worker.dispatch(id, 'answer')).toMatchObject({ message: '8080', last_seq: last + 2 });
      expect(await cluster.aliceOn(b).json(`/workflows/${id}`)).toMatchObject({
        status: 'running',
        worker_id: worker.id,
      });
      expect(await worker.store(id, last + 3, logEntry('listening on 8080'))).toMatchObject({ type: 'ack' });
      // Delivered once: nothing is left waiting on the row for a later hand-out. A's dispatcher clears it
      // after the send (at least once, never lost), so the worker's ack may come first.
      await eventually(async () =>
        expect(await db.db.workflow.findUniqueOrThrow({ where: { id } })).toMatchObject({ steer_action: null }),
      );
      stop();
    },
    CLUSTER_TIMEOUT_MS,
  );

  it(
    'feedback sent through B reaches the worker on A, whose next log entries carry the new plan revision',
    async () => {
      const { a, b } = cluster;
      const { worker, id, last } = await startedOn(cluster, a, 'reviser-on-a');
      const stop = keepBeating(worker, () => [id]);
      await worker.store(id, last + 1, snapshot('executing', 0, ['running', 'pending']));
      await worker.store(id, last + 2, logEntry('before the feedback'));
      await cluster.aliceOn(b).json(`/workflows/${id}/feedback`, { json: { message: 'add a README' } });
      expect(await worker.dispatch(id, 'feedback')).toMatchObject({ message: 'add a README' });
      await worker.store(id, last + 3, logEntry('after the feedback'));
      const log = await cluster
        .aliceOn(b)
        .json<{ items: { output: string; revision: number }[] }>(`/workflows/${id}/log`);
      expect(log.items.map((e) => [e.output, e.revision])).toEqual([
        ['before the feedback', 0],
        ['after the feedback', 1],
      ]);
      stop();
    },
    CLUSTER_TIMEOUT_MS,
  );

  it(
    'a cancel sent through B stops the worker on A at once',
    async () => {
      const { a, b } = cluster;
      const { worker, id, last } = await startedOn(cluster, a, 'runner-on-a');
      await worker.store(id, last + 1, snapshot('executing', 0, ['running', 'pending']));
      await cluster.aliceOn(b).json(`/workflows/${id}/cancel`, { json: {} });
      expect(await worker.dispatch(id, 'cancel')).toMatchObject({ workflow_id: id });
    },
    CLUSTER_TIMEOUT_MS,
  );

  it(
    'a cancel sent while the worker was away reaches it when it reconnects to the other replica',
    async () => {
      const { a, b } = cluster;
      const before = await cluster.worker(a, 'wanderer');
      const id = await createWorkflow(cluster.aliceOn(a), cluster.projectId);
      const { last_seq: last } = await before.dispatch(id, 'start');
      await before.store(id, last + 1, snapshot('executing', 0, ['running']));
      before.close();
      await cluster.aliceOn(a).json(`/workflows/${id}/cancel`, { json: {} });
      const after = await cluster.worker(b, 'wanderer');
      const stop = keepBeating(after, () => [id]);
      expect(await after.dispatch(id, 'cancel')).toMatchObject({ workflow_id: id });
      stop();
    },
    CLUSTER_TIMEOUT_MS,
  );

  it(
    'a session signed out through A is refused by B at once, and its browser socket on B is closed',
    async () => {
      const { a, b } = cluster;
      const cookie = await a.login('bob');
      const { ws, inbox } = await openBrowserSocket(b, cookie);
      expect((await b.request('/svc/api/me', { as: cookie })).status).toBe(200);
      expect((await a.request('/svc/auth/logout', { method: 'POST', as: cookie })).status).toBe(204);
      expect((await inbox.whenClosed()).code).toBe(4401);
      expect((await b.request('/svc/api/me', { as: cookie })).status).toBe(401);
      ws.terminate();
    },
    CLUSTER_TIMEOUT_MS,
  );

  it(
    'execute_on_worker reaches a target connected to the other replica, and its whole output (with its object and line times) comes back',
    async () => {
      const { a, b } = cluster;
      const asker = await cluster.worker(a, 'asker-for-exec');
      const id = await createWorkflow(cluster.aliceOn(a), cluster.projectId);
      await asker.dispatch(id, 'start');
      const target = await cluster.worker(b, 'gpu-on-b');
      asker.send({
        type: 'exec_request',
        request_id: 'req-1',
        target_worker: 'gpu-on-b',
        workflow_id: id,
        command: 'nvidia-smi',
        timeout_seconds: 30,
      });
      const exec = await target.inbox.next((m) => m.type === 'exec');
      expect(exec).toMatchObject({ workflow_id: id, command: 'nvidia-smi', timeout_seconds: 30 });
      // Larger than one NOTIFY, with characters JSON escapes.
      const output = Array.from({ length: 600 }, (_, i) => `GPU ${i}: "ok" \u00e9\n`).join('');
      // The whole output's object and enough line times that they too need parts (decision 0081).
      const whole = {
        output_object: { name: 'o-remote', total_bytes: 123_456 },
        output_line_times: {
          started_at: '2026-01-02T03:04:05.678Z',
          lines: Array.from({ length: 600 }, (_, i): [number, number | null] => [i, i === 0 ? null : i * 3]),
        },
      };
      target.send({
        type: 'exec_result',
        request_id: exec.request_id,
        exit_code: 0,
        output,
        timed_out: false,
        ...whole,
      });
      expect(await asker.inbox.next((m) => m.type === 'exec_result')).toEqual({
        type: 'exec_result',
        request_id: 'req-1',
        exit_code: 0,
        output,
        timed_out: false,
        ...whole,
      });
    },
    CLUSTER_TIMEOUT_MS,
  );
});
