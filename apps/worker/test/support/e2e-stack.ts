import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Worker, Workflow, WorkflowStatus } from '@svc/protocol';
import { startScriptedLlm, type RunningScriptedLlm, type Script, type ScriptedHandler } from '@svc/scripted-llm';
import {
  eventually,
  startApiProcess,
  StopWaiting,
  type ApiProcess,
  type DbProvider,
  type ManagedProcess,
} from '@svc/test-kit';
import { ApiClient } from './e2e-client';
import { startWorkerProcess } from './e2e-worker';
import { FaultRelay } from './fault-relay';

export interface StackOptions {
  db?: DbProvider;
  script?: Script;
  handler?: ScriptedHandler;
  apiEnv?: Record<string, string>;
  /** Extra worker config keys for the worker started with the stack. */
  workerConfig?: Record<string, unknown>;
  /** Extra environment of every worker process the stack starts. */
  workerEnv?: Record<string, string>;
  /** Workers reach the server through a FaultRelay the test steers (`stack.relay`). */
  relay?: boolean;
}

/**
 * Everything real, wired together: the API server process, the scripted LLM over HTTP, one worker
 * CLI process registered with a server-minted worker token, and `alice` signed in with a project.
 */
export interface Stack {
  api: ApiProcess;
  llm: RunningScriptedLlm;
  alice: ApiClient;
  /** the administrator who minted the worker token */
  root: ApiClient;
  projectId: string;
  workerToken: string;
  /** Scratch directory: worker configs, workspaces, files the tests' commands write. */
  dir: string;
  workers: ManagedProcess[];
  /** Between the workers and the server, when the stack was started with `relay`. */
  relay?: FaultRelay;
  /** Starts another worker CLI process (with the stack's worker token unless given another) and waits until the server lists it online. */
  startWorker(name: string, config?: Record<string, unknown>, token?: string): Promise<ManagedProcess>;
  /** alice's `waitForStatus`, failing with every process's recent output attached. */
  waitForStatus(workflowId: string, status: WorkflowStatus): Promise<Workflow>;
  /** Output of every process, for a failing assertion's message. */
  diagnostics(): string;
  close(): Promise<void>;
}

export const FIRST_WORKER = 'e2e-worker';
/** Jest time limit of an e2e hook or test: real processes on a loaded 2-core machine need room. */
export const E2E_TIMEOUT_MS = 120_000;

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-e2e-'));
  const workers: ManagedProcess[] = [];
  const llm = await startScriptedLlm({ port: 0, script: options.script, handler: options.handler });
  let api: ApiProcess | undefined;
  let relay: FaultRelay | undefined;
  const close = async () => {
    await Promise.all(workers.map((w) => w.stop('SIGTERM')));
    await relay?.close();
    await api?.close();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    api = await startApiProcess({ provider: options.db, env: { LOG_LEVEL: 'warn', ...options.apiEnv } });
    const server = api;
    if (options.relay) relay = await FaultRelay.start(server.url);
    const workerServerUrl = relay?.url ?? server.url;
    const root = await ApiClient.signIn(server.url, 'root');
    const alice = await ApiClient.signIn(server.url, 'alice');
    const workerToken = await root.workerToken();
    const { id: projectId } = await alice.createProject('e2e');

    const startWorker = async (name: string, config?: Record<string, unknown>, token = workerToken) => {
      const worker = startWorkerProcess({
        dir,
        serverUrl: workerServerUrl,
        token,
        llmUrl: llm.url,
        name,
        config,
        env: options.workerEnv,
      });
      workers.push(worker);
      await eventually(
        async () => {
          if (worker.exit)
            throw new StopWaiting(`worker ${name} exited ${JSON.stringify(worker.exit)}\n${worker.tail()}`);
          const list = await alice.json<Worker[]>('/workers');
          return list.some((w) => w.name === name && w.status === 'online');
        },
        { what: `worker ${name} to register`, intervalMs: 100, detail: () => worker.tail() },
      );
      return worker;
    };
    await startWorker(FIRST_WORKER, options.workerConfig);
    const diagnostics = () => [server.process, ...workers].map((p) => p.tail(60)).join('\n');
    return {
      api: server,
      llm,
      alice,
      root,
      projectId,
      workerToken,
      dir,
      workers,
      ...(relay ? { relay } : {}),
      startWorker,
      diagnostics,
      // Gives up before the jest time limit, so a stuck run fails with every process's output attached.
      waitForStatus: (workflowId, status) =>
        alice.waitForStatus(workflowId, status, E2E_TIMEOUT_MS - 15_000).catch((err: Error) => {
          throw new Error(`${err.message}\n${diagnostics()}`);
        }),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
