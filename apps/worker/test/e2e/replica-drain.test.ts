import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startScriptedLlm, type RunningScriptedLlm } from '@svc/scripted-llm';
import {
  eventually,
  EventStream,
  SlowDownload,
  startBalancedReplicas,
  type BalancedReplicas,
  type LoadBalancer,
  type ManagedProcess,
} from '@svc/test-kit';
import { ApiClient } from '../support/e2e-client';
import { EACH_GATED_STEP_ONCE, GATED_PLAN_STEPS, gatedStepRuns, gatedStepsAgent } from '../support/gated-steps';
import { E2E_TIMEOUT_MS } from '../support/e2e-stack';
import { startWorkerProcess } from '../support/e2e-worker';

// Issue 27, a deploy: two API replicas behind a real haproxy, a real worker running a workflow, and
// through the balancer two large downloads and two event streams (round-robin puts one of each on
// each replica). The replica holding the worker's socket gets SIGTERM while a step's command runs:
// it drains. The worker is told "going away" (1001) and reconnects at once to the other replica,
// keeping its run (no lease wait); the downloads finish in full; the drained replica's event stream
// ends with `unavailable` and resumes on the other with Last-Event-ID; the run completes with each
// command run once and every acknowledged update stored once.
const WORKER = 'drain-worker';
const BIG_BYTES = 48 * 1024 * 1024;
let dir = '';
const file = (name: string) => path.join(dir, name);

const handler = gatedStepsAgent('Drain', file);

/** Resolves with the index of the replica that logs the worker's registration from now on. */
const registeredOn = (processes: ManagedProcess[]) =>
  Promise.race(
    processes.map((p, index) =>
      p
        .nextLine((line) => line.includes('"msg":"worker registered"') && line.includes(`"worker":"${WORKER}"`))
        .then(() => index),
    ),
  );

/** The workflow's stored event seqs a stream received, in arrival order (control frames have none). */
const seqsOf = (stream: EventStream): number[] =>
  stream.events
    .filter((e) => e.event !== 'subscribed' && e.event !== 'error')
    .map((e) => (JSON.parse(e.data) as { seq: number }).seq)
    .filter((seq) => seq > 0);

describe('a replica drains under a running workflow, a download and an event stream (two replicas behind haproxy)', () => {
  let llm: RunningScriptedLlm;
  let deployment: BalancedReplicas;
  let balancer: LoadBalancer;
  let worker: ManagedProcess;
  const streams: EventStream[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-drain-'));
    llm = await startScriptedLlm({ port: 0, handler });
    // A lease far longer than the test: the run can only go on because a shutdown takes nothing back.
    deployment = await startBalancedReplicas(2, {
      env: {
        LOG_LEVEL: 'info',
        WORKER_HEARTBEAT_SECONDS: '1',
        WORKER_OFFLINE_AFTER_SECONDS: '3',
        WORKER_LEASE_SECONDS: '3600',
        SHUTDOWN_GRACE_SECONDS: '300',
      },
    });
    ({ balancer } = deployment);
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await worker?.stop('SIGTERM');
    await deployment?.close();
    await llm?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'hands the worker over at once, finishes the downloads, resumes the stream elsewhere, and completes the run',
    async () => {
      const root = await ApiClient.signIn(balancer.url, 'root');
      const alice = await ApiClient.signIn(balancer.url, 'alice');
      const { id: projectId } = await alice.createProject('drain');
      const processes = deployment.replicas.replicas.map((r) => r.process);
      const workflow = await alice.createWorkflow(projectId, `Run ${GATED_PLAN_STEPS} steps.`);
      const workspace = path.join(deployment.replicas.dataDir, 'workspaces', projectId, workflow.id);
      mkdirSync(workspace, { recursive: true });
      const content = randomBytes(BIG_BYTES);
      writeFileSync(path.join(workspace, 'big.bin'), content);
      const sha256 = createHash('sha256').update(content).digest('hex');

      // In a row while nothing else uses the balancer (the worker is not started yet): round-robin puts
      // one stream and one download on each replica, so one of each is on the replica that drains.
      const eventsPath = `/svc/api/workflows/${workflow.id}/events?since_seq=0`;
      for (let i = 0; i < 2; i++) streams.push(await EventStream.open(balancer.url, eventsPath, alice.cookie));
      const downloads = [0, 1].map(
        () => new SlowDownload(`${balancer.url}/svc/api/workflows/${workflow.id}/files/big.bin`, alice.cookie),
      );
      for (const download of downloads) await download.started;

      const first = registeredOn(processes);
      worker = startWorkerProcess({
        dir,
        serverUrl: balancer.url,
        token: await root.workerToken(),
        llmUrl: llm.url,
        name: WORKER,
        config: { sandbox: 'none' },
      });
      const holder = await first;
      const diagnostics = () => [worker, ...processes, balancer.process].map((p) => p.tail(60)).join('\n');
      await eventually(() => existsSync(file('started')), { what: 'the gated command to start', detail: diagnostics });

      const survivor = 1 - holder;
      const reconnected = registeredOn([processes[survivor]!]);
      const goingAway = worker.nextLine((line) => line.includes('"msg":"disconnected; reconnecting"'));
      const drained = processes[holder]!.exited;
      processes[holder]!.child.kill('SIGTERM');
      // The worker was told "going away" and reconnected without back-off, to the other replica.
      const disconnect = JSON.parse(await goingAway) as { code: number; delayMs: number };
      expect(disconnect.code).toBe(1001);
      expect(disconnect.delayMs).toBeLessThan(250);
      await reconnected;
      // The drained replica's stream ended cleanly with `unavailable`; the other one goes on.
      const ended = await Promise.race(streams.map((stream, i) => stream.closed().then(() => i)));
      const endedStream = streams[ended]!;
      expect(endedStream.dataOf('error').map((data) => data.error.code)).toEqual(['unavailable']);
      // Like an EventSource: reconnect through the balancer with Last-Event-ID (the drained one refuses).
      const lastId = endedStream.events.at(-1)?.lastEventId || '0';
      const resumed = await EventStream.open(balancer.url, eventsPath, alice.cookie, { 'last-event-id': lastId });
      streams.push(resumed);

      // The downloads in flight finish in full, the one on the draining replica included; then it exits.
      for (const download of downloads) download.resume();
      for (const download of downloads) {
        expect(await download.done).toBe(BIG_BYTES);
        expect(download.hash.digest('hex')).toBe(sha256);
      }
      expect(await drained).toEqual({ code: 0, signal: null });
      expect(processes[holder]!.output).toContain('"msg":"drained: everything in flight finished"');

      writeFileSync(file('go'), '');
      const done = await alice.waitForStatus(workflow.id, 'completed', E2E_TIMEOUT_MS - 30_000).catch((err: Error) => {
        throw new Error(`${err.message}\n${diagnostics()}`);
      });
      expect(done.error ?? null).toBeNull();

      // Every step's command ran once; the log holds each acknowledged tool call once.
      expect(gatedStepRuns(file)).toEqual(EACH_GATED_STEP_ONCE);
      const log = await alice.log(workflow.id);
      for (const n of EACH_GATED_STEP_ONCE)
        expect(log.filter((e) => e.step_index === n - 1).map((e) => e.tool_name)).toEqual([
          'execute_on_worker',
          'advance_step',
        ]);
      expect((await alice.plan(workflow.id)).map((s) => s.status)).toEqual(EACH_GATED_STEP_ONCE.map(() => 'done'));
      expect(worker.output).not.toContain('workflow failed');

      // Each stream's events, the ended one followed by its resumption: every seq once, in order, to the completion.
      const completed = (stream: EventStream) =>
        stream.events.some((e) => e.event === 'workflow_status' && JSON.parse(e.data).data.status === 'completed');
      const kept = streams[1 - ended]!;
      await kept.until(() => completed(kept), 'the kept stream to reach the completion');
      await resumed.until(() => completed(resumed), 'the resumed stream to reach the completion');
      const final = Math.max(...seqsOf(kept));
      const upTo = Array.from({ length: final }, (_, i) => i + 1);
      expect(seqsOf(kept)).toEqual(upTo);
      expect([...seqsOf(endedStream), ...seqsOf(resumed)]).toEqual(upTo);
    },
    E2E_TIMEOUT_MS,
  );
});
