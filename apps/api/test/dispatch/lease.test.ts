import pino from 'pino';
import { STEP_HISTORY_MAX_CALLS, type DispatchMessage, type StepToolCall } from '@svc/protocol';
import { eventually, logEntry, snapshot, TestWorker, workerToken } from '@svc/test-kit';
import { WorkerLiveness } from '../../src/dispatch/liveness';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { createProject, createWorkflow } from '../support/fixtures';
import { resetWorkers, SETUP_TIMEOUT_MS } from '../ws/clients';

const LEASE_SECONDS = 600;
/** What the server adds to the lease before it takes runs back (decision 0062). */
const MARGIN_SECONDS = 30;
/** Scripted workers send no heartbeats: however slow the machine, none of them may count as silent. */
const OFFLINE_AFTER_SECONDS = 3600;

const stepCall = (command: string, output: string): StepToolCall => ({
  tool_name: 'execute_on_worker',
  tool_input: { command },
  output,
  is_error: false,
});

describe.each(TEST_PROVIDERS)('a disconnected worker keeps its workflows for its lease, on %s', (provider) => {
  let server: TestServer;
  let token: string;
  let alice: string;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer(provider, {
      WORKER_HEARTBEAT_SECONDS: '1',
      WORKER_OFFLINE_AFTER_SECONDS: String(OFFLINE_AFTER_SECONDS),
      WORKER_LEASE_SECONDS: String(LEASE_SECONDS),
    });
    token = await workerToken(server);
    alice = await server.login('alice');
    projectId = (await createProject(server, alice)).id;
  }, SETUP_TIMEOUT_MS);
  const workers: TestWorker[] = [];
  afterEach(() => resetWorkers(server, workers));
  afterAll(async () => server?.close());
  const start = async (name: string) => {
    const worker = await TestWorker.start(server, token, name);
    workers.push(worker);
    return worker;
  };
  const row = (id: string) => server.deps.db.workflow.findUniqueOrThrow({ where: { id } });
  /** A liveness sweep as the server's own would run it `aheadMs` from now (started long before, unless `justStarted`). */
  const sweepAt = (aheadMs: number, justStarted = false, leaseMarginSeconds = 0) =>
    new WorkerLiveness({
      leaseMarginSeconds,
      db: server.deps.db,
      registry: server.runtime.live.registry,
      dispatcher: server.runtime.live.dispatcher,
      logger: pino({ level: 'silent' }),
      offlineAfterSeconds: OFFLINE_AFTER_SECONDS,
      leaseSeconds: LEASE_SECONDS,
      now: () => Date.now() + aheadMs,
      startedAt: justStarted ? Date.now() + aheadMs : Date.now() - 10 * LEASE_SECONDS * 1000,
    });

  async function midway(worker: TestWorker): Promise<{ id: string; last: number }> {
    const { id } = await createWorkflow(server, alice, projectId);
    const { last_seq: last } = await worker.dispatch(id, 'start');
    await worker.store(id, last + 1, snapshot('executing', 0, ['running', 'pending', 'pending']));
    await worker.store(id, last + 2, logEntry('step one done'));
    return { id, last: last + 2 };
  }

  it('goes on with them when it reconnects within the lease, and loses them when the lease runs out', async () => {
    const first = await start('lease-1');
    const { id, last } = await midway(first);
    const other = await start('lease-2');
    first.close();
    await eventually(async () => {
      const worker = await server.deps.db.worker.findUniqueOrThrow({ where: { id: first.id } });
      return worker.status === 'offline';
    });
    // A sweep within the lease (even one started before the disconnect) leaves the workflow alone.
    await sweepAt(0).sweep();
    await sweepAt((LEASE_SECONDS - 5) * 1000).sweep();
    expect(await row(id)).toMatchObject({ assigned_worker_id: first.id, status: 'pending' });

    // Back under the same name: its first heartbeat says it still runs the workflow; its updates are stored.
    const back = await start('lease-1');
    back.send({ type: 'heartbeat', active_workflows: [id] });
    expect((await back.store(id, last + 1, logEntry('step two done'))).type).toBe('ack');
    expect(other.inbox.ofType('dispatch').filter((d) => d.workflow_id === id)).toHaveLength(0);

    // Gone again, and this time the lease runs out: the workflow goes to the other worker.
    back.close();
    await eventually(async () => {
      const worker = await server.deps.db.worker.findUniqueOrThrow({ where: { id: back.id } });
      return worker.status === 'offline';
    });
    await sweepAt((LEASE_SECONDS + 5) * 1000).sweep();
    expect(await other.dispatch(id, 'resume')).toMatchObject({ last_seq: last + 1 });
    expect((await row(id)).assigned_worker_id).toBe(other.id);
  }, 30_000);

  it('tells the worker its lease, takes its runs back only after the margin, and answers which are still its own', async () => {
    const first = await start('lease-4');
    expect(first.inbox.messages.find((m) => m.type === 'registered')).toMatchObject({ lease_seconds: LEASE_SECONDS });
    const { id, last } = await midway(first);
    expect((await first.store(id, last + 1, { kind: 'status', data: { status: 'running' } })).type).toBe('ack');
    // Step 1 advances to step 2, which makes two calls before the cut.
    const stepTwo = [stepCall('echo a', 'a\n'), { ...stepCall('false', 'exit 1'), is_error: true }];
    let seq = last + 1;
    await first.store(id, ++seq, snapshot('executing', 1, ['done', 'running', 'pending']));
    for (const call of stepTwo) await first.store(id, ++seq, { kind: 'log_entry', data: { step_index: 1, ...call } });
    const other = await start('lease-5');
    const offline = (workerId: string) => async () =>
      (await server.deps.db.worker.findUniqueOrThrow({ where: { id: workerId } })).status === 'offline';
    first.close();
    await eventually(offline(first.id));
    // Past the lease the worker has fenced its runs itself; the server waits for the margin too.
    await sweepAt((LEASE_SECONDS + MARGIN_SECONDS - 5) * 1000, false, MARGIN_SECONDS).sweep();
    expect((await row(id)).assigned_worker_id).toBe(first.id);

    // Back: its first heartbeat is answered with the runs that are still its own.
    const back = await start('lease-4');
    back.send({ type: 'heartbeat', active_workflows: [id, 'wf-of-nobody'] });
    expect(await back.inbox.next((m) => m.type === 'holding')).toEqual({ type: 'holding', workflow_ids: [id] });

    back.close();
    await eventually(offline(back.id));
    await sweepAt((LEASE_SECONDS + MARGIN_SECONDS + 5) * 1000, false, MARGIN_SECONDS).sweep();
    // Taken back mid-step: the worker that resumes it is told a command may have run before, and gets
    // the step's earlier calls (not step 1's) to go on after them.
    expect(await other.dispatch(id, 'resume')).toMatchObject({
      message: expect.stringMatching(/^resumed after lease loss: .*may have run before/),
      step_history: { step_index: 1, calls: stepTwo, omitted: 0 },
    });
  }, 30_000);

  it('replays at most the latest calls of a long step, counting the ones left out', async () => {
    const first = await start('lease-6');
    const { id, last } = await midway(first);
    let seq = last;
    const calls = STEP_HISTORY_MAX_CALLS + 3;
    for (let n = 1; n <= calls; n++) await first.store(id, ++seq, logEntry(`call ${n}`));
    await first.store(id, ++seq, { kind: 'status', data: { status: 'running' } });
    const other = await start('lease-7');
    first.close();
    await eventually(
      async () => (await server.deps.db.worker.findUniqueOrThrow({ where: { id: first.id } })).status === 'offline',
    );
    await sweepAt((LEASE_SECONDS + 5) * 1000).sweep();
    const { step_history: history } = (await other.dispatch(id, 'resume')) as DispatchMessage;
    // midway's own entry is the step's first call.
    expect(history?.omitted).toBe(calls + 1 - STEP_HISTORY_MAX_CALLS);
    expect(history?.calls.map((call) => call.output)).toEqual(
      Array.from({ length: STEP_HISTORY_MAX_CALLS }, (_, i) => `call ${calls - STEP_HISTORY_MAX_CALLS + i + 1}`),
    );
  }, 30_000);

  it('does not count the downtime of a restarted server against the lease', async () => {
    const first = await start('lease-3');
    const { id } = await midway(first);
    first.close();
    await eventually(
      async () => (await server.deps.db.worker.findUniqueOrThrow({ where: { id: first.id } })).status === 'offline',
    );
    // The worker was last heard of long ago (the server was down), but this server started just now.
    await server.deps.db.worker.update({
      where: { id: first.id },
      data: { last_seen_at: new Date(Date.now() - 10 * LEASE_SECONDS * 1000) },
    });
    await sweepAt(0, true).sweep();
    expect((await row(id)).assigned_worker_id).toBe(first.id);
    // The same sweep on a server up for longer than the lease takes it back.
    await sweepAt(0).sweep();
    expect((await row(id)).assigned_worker_id).toBeNull();
  }, 30_000);
});
