import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { UpdateBody } from '@svc/protocol';
import { startScriptedLlm, type RunningScriptedLlm, type Script, type ScriptedHandler } from '@svc/scripted-llm';
import { eventually, StopWaiting } from '@svc/test-kit';
import { resolveConfig, type WorkerConfig } from '../../src/config';
import { loadPrompts } from '../../src/prompts';
import { startWorker, type RunningWorker } from '../../src/worker';
import { BrowserSocket } from './e2e-browser';
import type { ServerFixture } from './real-server';

export interface HarnessOptions {
  script?: Script;
  handler?: ScriptedHandler;
  /** Raw config keys (snake_case) on top of the defaults below. */
  config?: Record<string, unknown>;
  /** The worker's own environment on top of PATH and HOME (what `command_env` passes on). */
  baseEnv?: Record<string, string>;
}

export interface Harness {
  server: ServerFixture;
  llm: RunningScriptedLlm;
  worker: RunningWorker;
  config: WorkerConfig;
  /** The worker's registered name (unique per server) and the id the server gave it. */
  name: string;
  workerId: string;
  workspaceRoot: string;
  /** alice's live socket: the `workflow_update` events of every workflow `watch`ed, as the server stored them. */
  browser: BrowserSocket;
  /**
   * Creates a workflow of alice's that asks for this worker (the server dispatches it here) and
   * subscribes to its events.
   */
  start(requirement?: string): Promise<string>;
  /** Subscribes to a workflow's events from its first one (a replay, then live). */
  watch(workflowId: string): Promise<void>;
  /** What the worker sent for a workflow and the server stored, in the order it was stored. */
  updates(workflowId: string): UpdateBody[];
  /** The statuses the worker reported for a workflow. */
  statuses(workflowId: string): string[];
  /** Waits until the worker reported `status`; another final status ends the wait at once. */
  waitForStatus(workflowId: string, status: string): Promise<void>;
  /** The seqs of a workflow's updates the server acknowledged to this worker (stored once each), ascending. */
  acked(workflowId: string): number[];
  close(): Promise<void>;
}

const FINAL = ['completed', 'failed', 'cancelled'];
let harnesses = 0;

/**
 * The real worker (config, link, loop, executor, LLM client) in this process, registered with the
 * real API server of `server` under a fresh name, with a scripted LLM of its own.
 */
export async function startHarness(server: ServerFixture, options: HarnessOptions = {}): Promise<Harness> {
  const name = `harness-${process.pid}-${++harnesses}`;
  const llm = await startScriptedLlm({ port: 0, script: options.script, handler: options.handler });
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'svc-harness-'));
  const config = resolveConfig(
    {
      server_url: server.api.url,
      token: server.token,
      name,
      capacity: 2,
      workspace_root: workspaceRoot,
      llm: { base_url: llm.url, api_key: 'sk-test', model: 'scripted', timeout_seconds: 10, max_retries: 2 },
      command_timeout_seconds: 20,
      max_turns_per_step: 12,
      ...options.config,
    },
    { env: {}, hostname: 'test-host', baseDir: workspaceRoot },
  );
  const worker = await startWorker({
    config,
    prompts: loadPrompts(),
    baseEnv: { PATH: process.env.PATH, HOME: workspaceRoot, ...options.baseEnv },
    hostname: 'test-host',
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    reconnect: { baseMs: 20, maxMs: 100 },
    llmRetry: { baseMs: 10, maxMs: 50 },
  });
  // Every ack the server sends: the updates it stored.
  const acks = new Map<string, number[]>();
  const ack = worker.uplink.ack.bind(worker.uplink);
  worker.uplink.ack = (workflowId, seq) => {
    acks.set(workflowId, [...(acks.get(workflowId) ?? []), seq]);
    ack(workflowId, seq);
  };
  let browser: BrowserSocket | undefined;
  const close = async () => {
    browser?.close();
    await worker.stop(500);
    await llm.close();
    rmSync(workspaceRoot, { recursive: true, force: true });
  };
  try {
    await eventually(() => worker.link.isRegistered, { what: `worker ${name} to register` });
    const workerId = worker.uplink.workerId!;
    const socket = await BrowserSocket.open(server.api.url, server.alice.cookie);
    browser = socket;
    const updates = (workflowId: string) => socket.events('workflow_update', workflowId).map((e) => e.data);
    const statuses = (workflowId: string): string[] =>
      updates(workflowId).flatMap((u) => (u.kind === 'status' ? [u.data.status] : []));
    const watch = (workflowId: string) => socket.subscribe(workflowId, 0);
    return {
      server,
      llm,
      worker,
      config,
      name,
      workerId,
      workspaceRoot,
      browser: socket,
      async start(requirement = 'Build a tiny static site.') {
        const { id } = await server.alice.createWorkflow(server.projectId, requirement, { worker_id: workerId });
        await watch(id);
        return id;
      },
      watch,
      updates,
      statuses,
      async waitForStatus(workflowId, status) {
        await eventually(
          () => {
            const seen = statuses(workflowId);
            if (seen.includes(status)) return true;
            const final = seen.find((s) => FINAL.includes(s));
            if (final) throw new StopWaiting(`workflow ${workflowId} ended ${final} while waiting for ${status}`);
            return false;
          },
          { what: `status ${status} of ${workflowId}`, detail: () => JSON.stringify(updates(workflowId).slice(-5)) },
        );
      },
      acked: (workflowId) => [...(acks.get(workflowId) ?? [])].sort((a, b) => a - b),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
