import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DispatchMessage } from '@svc/protocol';
import { startScriptedLlm, type RunningScriptedLlm, type Script, type ScriptedHandler } from '@svc/scripted-llm';
import { resolveConfig, type WorkerConfig } from '../../src/config';
import { loadPrompts } from '../../src/prompts';
import { startWorker, type RunningWorker } from '../../src/worker';
import { ProtocolServer } from './protocol-server';
import { RestState } from './rest-state';

export interface HarnessOptions {
  script?: Script;
  handler?: ScriptedHandler;
  /** Raw config keys (snake_case) on top of the defaults below. */
  config?: Record<string, unknown>;
  heartbeatSeconds?: number;
}

export interface Harness {
  server: ProtocolServer;
  rest: RestState;
  llm: RunningScriptedLlm;
  worker: RunningWorker;
  config: WorkerConfig;
  workspaceRoot: string;
  dispatch(message: Partial<DispatchMessage> & { action: DispatchMessage['action']; workflow_id: string }): void;
  /** Updates of a workflow as the server stored them, in seq order. */
  updates(workflowId: string): ReturnType<ProtocolServer['updates']>;
  statuses(workflowId: string): string[];
  waitForStatus(workflowId: string, status: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** The real worker (config, link, loop, executor, LLM client) against real local servers. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const rest = new RestState();
  const server = await ProtocolServer.start({ rest: rest.handle, heartbeatSeconds: options.heartbeatSeconds ?? 30 });
  const llm = await startScriptedLlm({ port: 0, script: options.script, handler: options.handler });
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'svc-harness-'));
  const config = resolveConfig(
    {
      server_url: server.url,
      token: 'worker-token',
      name: 'test-worker',
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
    baseEnv: { PATH: process.env.PATH, HOME: workspaceRoot },
    hostname: 'test-host',
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    reconnect: { baseMs: 20, maxMs: 100 },
    llmRetry: { baseMs: 10, maxMs: 50 },
  });
  await server.until(() => worker.link.isRegistered, 5000, 'worker registration');

  const harness: Harness = {
    server,
    rest,
    llm,
    worker,
    config,
    workspaceRoot,
    dispatch(message) {
      server.send({
        type: 'dispatch',
        project_id: 'p1',
        requirement: 'Build a tiny static site.',
        last_seq: 0,
        ...message,
      });
    },
    updates: (workflowId) => server.updates(workflowId),
    statuses: (workflowId) => server.updates(workflowId).flatMap((u) => (u.kind === 'status' ? [u.data.status] : [])),
    async waitForStatus(workflowId, status, timeoutMs = 10_000) {
      await server.until(
        () => harness.statuses(workflowId).includes(status),
        timeoutMs,
        `status ${status} of ${workflowId}`,
      );
    },
    async close() {
      await worker.stop(500);
      await llm.close();
      await server.close();
    },
  };
  return harness;
}
