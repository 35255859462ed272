import { createDb, type DbHandle } from '@svc/db';
import {
  eventually,
  logEntry,
  snapshot,
  openBrowserSocket,
  Session,
  startReplicas,
  TestWorker,
  workerToken,
  type ApiProcess,
  type Inbox,
  type Message,
  type Replicas,
} from '@svc/test-kit';

/** Jest time limit of a hook or test that starts or kills API processes on a loaded 2-core machine. */
export const CLUSTER_TIMEOUT_MS = 120_000;

/** Fast liveness, so a lost replica's workers are noticed within seconds. */
export const FAST_LIVENESS = {
  WORKER_HEARTBEAT_SECONDS: '1',
  WORKER_OFFLINE_AFTER_SECONDS: '2',
  LOG_LEVEL: 'warn',
};

/** Two (or more) API replicas on one PostgreSQL database and data directory; alice owns a project. */
export interface Cluster {
  replicas: Replicas;
  a: ApiProcess;
  b: ApiProcess;
  token: string;
  /** alice's session cookie (valid on every replica) */
  alice: string;
  projectId: string;
  /** alice's REST calls through one replica */
  aliceOn(replica: ApiProcess): Session;
  /** A scripted worker registered with `replica`. */
  worker(replica: ApiProcess, name: string, capacity?: number): Promise<TestWorker>;
  /** Disconnects the workers started so far (a test's idle workers must not take the next test's work). */
  closeWorkers(): void;
  close(): Promise<void>;
}

export async function startCluster(env: Record<string, string> = {}, count = 2): Promise<Cluster> {
  const replicas = await startReplicas(count, { provider: 'postgresql', env: { ...FAST_LIVENESS, ...env } });
  const workers: TestWorker[] = [];
  try {
    const [a, b] = replicas.replicas as [ApiProcess, ApiProcess];
    const token = await workerToken(a);
    const alice = await a.login('alice');
    const { id: projectId } = await new Session(a.url, alice).json<{ id: string }>('/projects', {
      json: { name: 'scale' },
    });
    return {
      replicas,
      a,
      b,
      token,
      alice,
      projectId,
      aliceOn: (replica) => new Session(replica.url, alice),
      async worker(replica, name, capacity = 1) {
        const worker = await TestWorker.start(replica, token, name, capacity);
        // Alive from registration: with WORKER_OFFLINE_AFTER_SECONDS 2, a loaded machine's slow create
        // left a silent worker offline before its run was dispatched, and the test waited for nothing.
        worker.keepAlive();
        workers.push(worker);
        return worker;
      },
      closeWorkers() {
        for (const worker of workers.splice(0)) worker.close();
      },
      async close() {
        for (const worker of workers.splice(0)) worker.close();
        await replicas.close();
      },
    };
  } catch (err) {
    await replicas.close();
    throw err;
  }
}

export async function createWorkflow(session: Session, projectId: string, requirement = 'scale out'): Promise<string> {
  return (await session.json<{ id: string }>(`/projects/${projectId}/workflows`, { json: { requirement } })).id;
}

/**
 * A worker connected to `replica`, started on a new workflow created through the same replica; `last`
 * is the highest seq stored for it (what the worker continues after).
 */
export async function startedOn(
  cluster: Cluster,
  replica: ApiProcess,
  workerName: string,
): Promise<{ worker: TestWorker; id: string; last: number }> {
  const worker = await cluster.worker(replica, workerName);
  const id = await createWorkflow(cluster.aliceOn(replica), cluster.projectId);
  const { last_seq: last } = await worker.dispatch(id, 'start');
  return { worker, id, last };
}

/** A browser socket on `replica`, subscribed to the workflow; resolves with its `subscribed` answer. */
export async function subscribeBrowser(
  replica: ApiProcess,
  cookie: string,
  workflowId: string,
  sinceSeq?: number,
): Promise<{ inbox: Inbox; close(): void; subscribed: Message }> {
  const { ws, inbox } = await openBrowserSocket(replica, cookie);
  // Without since_seq the browser follows from now: `subscribed.last_seq` is where its stream starts.
  ws.send(JSON.stringify({ type: 'subscribe', workflow_id: workflowId, since_seq: sinceSeq }));
  const subscribed = await inbox.next((m) => m.type === 'subscribed' && m.workflow_id === workflowId);
  return { inbox, subscribed, close: () => ws.terminate() };
}

/** The seqs of the workflow's events a browser inbox received, in arrival order. */
export const receivedSeqs = (inbox: Inbox, workflowId: string): number[] =>
  inbox.messages
    .filter((m) => m.workflow_id === workflowId && typeof m.seq === 'number' && m.seq > 0)
    .map((m) => m.seq);

/** Waits until the browser has the workflow's event `seq`. */
export const receivedUpTo = (inbox: Inbox, workflowId: string, seq: number) =>
  inbox.next((m) => m.workflow_id === workflowId && m.seq >= seq);

/** 1..n */
export const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** Heartbeats like a real worker (every 500 ms), reporting what it runs; returns the stop. */
export function keepBeating(worker: TestWorker, active: () => string[]): () => void {
  worker.send({ type: 'heartbeat', active_workflows: active() });
  const beat = setInterval(() => worker.send({ type: 'heartbeat', active_workflows: active() }), 500);
  return () => clearInterval(beat);
}

/** The shared database, read directly for what no endpoint shows (stored seqs, timers). */
export async function openDb(cluster: Cluster): Promise<DbHandle> {
  return createDb({ url: cluster.replicas.databaseUrl, poolSize: 2 });
}

/** A workflow `worker` started and then paused with a snapshot stored (so its next hand-out is a resume). */
export async function pausedWorkflow(cluster: Cluster, through: ApiProcess, worker: TestWorker): Promise<string> {
  const id = await createWorkflow(cluster.aliceOn(through), cluster.projectId);
  const { last_seq: last } = await worker.dispatch(id, 'start');
  await worker.store(id, last + 1, snapshot('executing', 0, ['running', 'pending']));
  await worker.store(id, last + 2, { kind: 'status', data: { status: 'pending' } });
  return id;
}

export { eventually, logEntry, snapshot };
