import type { DbHandle } from '@svc/db';
import type { Message, TestWorker } from '@svc/test-kit';
import { CLUSTER_TIMEOUT_MS, createWorkflow, eventually, openDb, startCluster, type Cluster } from './cluster';

/**
 * A project's `max_running` and a concurrency key hold across replicas (decision 0037): two replicas
 * on one PostgreSQL database, a worker on each with room for two, and every run is handed out by
 * whichever replica claims it first.
 */
describe('concurrency limits across two PostgreSQL replicas', () => {
  let cluster: Cluster;
  let db: DbHandle;

  beforeAll(async () => {
    // Slow liveness: on a loaded machine a late heartbeat must not hand a run to the other worker.
    cluster = await startCluster({ WORKER_HEARTBEAT_SECONDS: '2', WORKER_OFFLINE_AFTER_SECONDS: '120' });
    db = await openDb(cluster);
  }, CLUSTER_TIMEOUT_MS);
  // A failed test's workers would take the next test's runs.
  afterEach(() => cluster?.closeWorkers());
  afterAll(async () => {
    await db?.close();
    await cluster?.close();
  }, CLUSTER_TIMEOUT_MS);

  /** The first start dispatch on any of the workers for a run not started yet. */
  const nextStart = (workers: TestWorker[], started: ReadonlySet<string>) =>
    eventually(
      () => {
        for (const worker of workers) {
          const dispatch = worker.inbox.messages.find(
            (m: Message) => m.type === 'dispatch' && m.action === 'start' && !started.has(m.workflow_id),
          );
          if (dispatch) return { worker, dispatch };
        }
        return false;
      },
      { what: 'the next run to start' },
    );

  /** A worker on `replica` that heartbeats like a real one (the cluster's liveness is fast). */
  async function liveWorker(replica: Cluster['a'], name: string): Promise<TestWorker> {
    const worker = await cluster.worker(replica, name, 2);
    worker.keepAlive();
    return worker;
  }

  const allStarts = (workers: TestWorker[]) =>
    workers.flatMap((w) => w.inbox.ofType('dispatch').filter((m: Message) => m.action === 'start'));

  /** Runs the project's runs to the end one by one; the log of starts and finishes, and the start order. */
  async function drain(workers: TestWorker[], count: number, projectId: string) {
    const started = new Set<string>();
    const log: string[] = [];
    for (let n = 0; n < count; n++) {
      const { worker, dispatch } = await nextStart(workers, started);
      started.add(dispatch.workflow_id);
      log.push(`start ${dispatch.workflow_id}`);
      // While it runs, it is the only run of the project holding a worker, and no other start arrived.
      expect(
        await db.db.workflow.count({
          where: {
            project_id: projectId,
            assigned_worker_id: { not: null },
            status: { in: ['pending', 'planning', 'running', 'waiting_user'] },
          },
        }),
      ).toBe(1);
      expect(allStarts(workers)).toHaveLength(started.size);
      await worker.store(dispatch.workflow_id, dispatch.last_seq + 1, {
        kind: 'status',
        data: { status: 'completed' },
      });
      log.push(`finish ${dispatch.workflow_id}`);
    }
    return { log, order: [...started] };
  }

  it(
    'with max_running 1, runs created through both replicas never run at once, and go oldest first',
    async () => {
      const alice = cluster.aliceOn(cluster.a);
      await alice.json(`/projects/${cluster.projectId}`, { method: 'PATCH', json: { max_running: 1 } });
      const workers = [await liveWorker(cluster.a, 'on-a'), await liveWorker(cluster.b, 'on-b')];
      const ids: string[] = [];
      for (let i = 0; i < 4; i++)
        ids.push(await createWorkflow(cluster.aliceOn(i % 2 ? cluster.b : cluster.a), cluster.projectId, `run ${i}`));

      const { log, order } = await drain(workers, ids.length, cluster.projectId);
      expect(order).toEqual(ids);
      // Strictly alternating: each start follows the previous run's finish.
      expect(log).toEqual(ids.flatMap((id) => [`start ${id}`, `finish ${id}`]));
    },
    CLUSTER_TIMEOUT_MS,
  );

  it(
    'runs of one key go one at a time in creation order across replicas, without a project limit',
    async () => {
      const alice = cluster.aliceOn(cluster.b);
      const { id: projectId } = await alice.json<{ id: string }>('/projects', { json: { name: 'keys' } });
      const workers = [await liveWorker(cluster.a, 'key-a'), await liveWorker(cluster.b, 'key-b')];
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const through = cluster.aliceOn(i % 2 ? cluster.a : cluster.b);
        const created = await through.json<{ id: string }>(`/projects/${projectId}/workflows`, {
          json: { requirement: `deploy ${i}`, concurrency_key: 'main' },
        });
        ids.push(created.id);
      }
      const { order } = await drain(workers, ids.length, projectId);
      expect(order).toEqual(ids);
    },
    CLUSTER_TIMEOUT_MS,
  );
});
