import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type WebSocket from 'ws';
import { startScriptedLlm, type RunningScriptedLlm } from '@svc/scripted-llm';
import {
  eventually,
  openBrowserSocket,
  startBalancedReplicas,
  type BalancedReplicas,
  type LoadBalancer,
  type ManagedProcess,
  type Message,
} from '@svc/test-kit';
import { ApiClient } from '../support/e2e-client';
import { EACH_GATED_STEP_ONCE, GATED_PLAN_STEPS, gatedStepRuns, gatedStepsAgent } from '../support/gated-steps';
import { E2E_TIMEOUT_MS } from '../support/e2e-stack';
import { startWorkerProcess } from '../support/e2e-worker';

// Issue 10: two API replicas on one PostgreSQL database behind a real haproxy, a real worker and two
// browser sockets connected through it. The replica holding the worker's socket is SIGKILLed while a
// step's command runs: the worker reconnects through the balancer to the other replica and the
// workflow finishes; nothing the worker had acknowledged is lost or stored twice; each browser's
// stream (one of them reconnecting with since_seq) is gap-free and duplicate-free.
const WORKER = 'failover-worker';
let dir = '';
const file = (name: string) => path.join(dir, name);

const handler = gatedStepsAgent('Failover', file);

/**
 * A browser page's view of one workflow through the balancer: subscribes from seq 0 and, when its
 * socket drops (its replica died), opens a new one and subscribes again with `since_seq` = the last
 * seq it has, as the web app does. Keeps every workflow event it received, duplicates included.
 */
/** Every browser the test opened, closed at the end whatever happened (they would reconnect). */
const opened: FollowingBrowser[] = [];

class FollowingBrowser {
  readonly events: Message[] = [];
  reconnects = 0;
  private socket: WebSocket | null = null;
  private closing = false;

  constructor(
    private readonly balancer: LoadBalancer,
    private readonly cookie: string,
    private readonly workflowId: string,
  ) {
    opened.push(this);
  }

  get lastSeq(): number {
    return this.events.reduce((max, e: { seq: number }) => Math.max(max, e.seq), 0);
  }

  async open(): Promise<void> {
    const { ws, inbox } = await openBrowserSocket(this.balancer, this.cookie);
    this.socket = ws;
    ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString()) as Message;
      if (message.workflow_id === this.workflowId && message.seq > 0) this.events.push(message);
    });
    ws.once('close', () => {
      if (this.closing) return;
      this.reconnects++;
      this.reopen();
    });
    ws.send(JSON.stringify({ type: 'subscribe', workflow_id: this.workflowId, since_seq: this.lastSeq }));
    await inbox.next((m) => m.type === 'subscribed');
  }

  /** Until it is open again (the balancer may still try the dead replica first), or the test is done. */
  private reopen(): void {
    // A browser that never reconnects shows as the events it misses, which the test asserts.
    eventually(async () => this.closing || (await this.open().then(() => true)), {
      what: 'the browser to reconnect through the balancer',
    }).catch(() => undefined);
  }

  close(): void {
    this.closing = true;
    this.socket?.close();
  }
}

/** Resolves with the index of the replica that logs the worker's registration from now on. */
const registeredOn = (processes: ManagedProcess[]) =>
  Promise.race(
    processes.map((p, index) =>
      p
        .nextLine((line) => line.includes('"msg":"worker registered"') && line.includes(`"worker":"${WORKER}"`))
        .then(() => index),
    ),
  );

describe('a replica dies under a running workflow (two replicas behind haproxy)', () => {
  let llm: RunningScriptedLlm;
  let deployment: BalancedReplicas;
  let balancer: LoadBalancer;
  let worker: ManagedProcess;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-failover-'));
    llm = await startScriptedLlm({ port: 0, handler });
    // Heartbeats every second: the surviving replica learns fast that the dead one's worker came back.
    // Info logs: each replica logs the workers that register with it (which one holds the socket).
    deployment = await startBalancedReplicas(2, {
      env: { LOG_LEVEL: 'info', WORKER_HEARTBEAT_SECONDS: '1', WORKER_OFFLINE_AFTER_SECONDS: '3' },
    });
    ({ balancer } = deployment);
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    for (const browser of opened) browser.close();
    await worker?.stop('SIGTERM');
    await deployment?.close();
    await llm?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'finishes the workflow on the other replica with every update stored once and gap-free browser streams',
    async () => {
      const root = await ApiClient.signIn(balancer.url, 'root');
      const alice = await ApiClient.signIn(balancer.url, 'alice');
      const { id: projectId } = await alice.createProject('failover');
      const processes = deployment.replicas.replicas.map((r) => r.process);
      const workflow = await alice.createWorkflow(projectId, `Run ${GATED_PLAN_STEPS} steps.`);
      // Two sockets in a row while nothing else uses the balancer (the worker is not started yet):
      // round-robin puts one on each replica, so one of them dies with the worker's replica.
      const browsers = [0, 1].map(() => new FollowingBrowser(balancer, alice.cookie, workflow.id));
      for (const browser of browsers) await browser.open();
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
      await deployment.replicas.replicas[holder]!.stop('SIGKILL');
      await reconnected;
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
      expect(await alice.report(workflow.id)).toContain('Every step ran once.');
      expect(worker.output).not.toContain('workflow failed');

      // Each browser: every seq from 1 to the last, once, in order, ending with the completion; the
      // last is what a page opened now replays.
      const replay = new FollowingBrowser(balancer, alice.cookie, workflow.id);
      await replay.open();
      const completed = (b: FollowingBrowser) =>
        b.events.some((e) => e.type === 'workflow_status' && e.data.status === 'completed');
      await eventually(() => completed(replay), { what: 'the replay to reach the completion' });
      const final = replay.lastSeq;
      for (const browser of [...browsers, replay]) {
        await eventually(() => browser.lastSeq === final, { what: 'each browser to see the last event' });
        expect(browser.events.map((e: { seq: number }) => e.seq)).toEqual(
          Array.from({ length: final }, (_, i) => i + 1),
        );
        expect(completed(browser)).toBe(true);
      }
      // The socket on the killed replica came back through the balancer; the other one never dropped.
      expect(browsers.map((b) => b.reconnects).sort()).toEqual([0, 1]);
    },
    E2E_TIMEOUT_MS,
  );
});
