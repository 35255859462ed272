import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Workflow, WorkflowStatus } from '@svc/protocol';
import { startScriptedLlm, type RunningScriptedLlm, type ScriptedHandler } from '@svc/scripted-llm';
import {
  eventually,
  repoRoot,
  Session,
  spawnProcess,
  startApiProcess,
  StopWaiting,
  type ApiProcess,
  type ManagedProcess,
} from '@svc/test-kit';
import {
  assertCliBuilt,
  killAllCli,
  runCli,
  runningCli,
  startCli,
  type CliOptions,
  type CliProcess,
  type CliResult,
} from './cli-process';

/** Jest time limit of a hook or test with real processes on a loaded 2-core machine. */
export const E2E_TIMEOUT_MS = 120_000;
export const WORKER_NAME = 'cli-e2e-worker';

const WORKER_CLI = path.join(repoRoot(), 'apps/worker/dist/cli.js');

/**
 * Everything real: the API server process, the scripted LLM, one worker CLI process, and `alice`
 * signed in through `svc login` (its config file in `dir`), owning project `ci`.
 */
export interface CliStack {
  api: ApiProcess;
  llm: RunningScriptedLlm;
  worker: ManagedProcess;
  dir: string;
  /** alice's config file (SVC_CONFIG of `svc`) */
  config: string;
  /** alice's api token, from `svc login` */
  token: string;
  alice: Session;
  projectId: string;
  /** `svc <args>` as alice (SVC_CONFIG set), to its end */
  svc(args: string[], options?: Partial<CliOptions>): Promise<CliResult>;
  /** `svc <args>` as alice; throws with the output and the stack's logs unless it exits with `expected` */
  svcExiting(args: string[], expected: number, options?: Partial<CliOptions>): Promise<CliResult>;
  /** `svc <args>` as alice, running: stdin open, output as it comes */
  start(args: string[], options?: Partial<CliOptions>): CliProcess;
  workflow(id: string): Promise<Workflow>;
  waitForStatus(id: string, status: WorkflowStatus): Promise<Workflow>;
  diagnostics(): string;
  /**
   * After a test: the `svc` processes it left running (a test that timed out) are described, with the
   * server's and worker's logs, and killed; null when none was left.
   */
  leftovers(): string | null;
  close(): Promise<void>;
}

export function describeResult(args: string[], result: CliResult): string {
  return `svc ${args.join(' ')} -> ${result.code}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
}

export async function startStack(handler: ScriptedHandler, env: Record<string, string> = {}): Promise<CliStack> {
  assertCliBuilt();
  statSync(WORKER_CLI);
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'svc-cli-e2e-')));
  const llm = await startScriptedLlm({ port: 0, handler });
  let api: ApiProcess | undefined;
  let worker: ManagedProcess | undefined;
  const close = async () => {
    killAllCli();
    await worker?.stop('SIGTERM');
    await api?.close();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    api = await startApiProcess({ env: { LOG_LEVEL: 'warn', SSE_HEARTBEAT_SECONDS: '1', ...env } });
    const url = api.url;
    const config = path.join(dir, 'alice.json');
    const cliOptions = (options: Partial<CliOptions> = {}): CliOptions => ({
      cwd: dir,
      ...options,
      env: { SVC_CONFIG: config, ...options.env },
    });
    const svc = (args: string[], options?: Partial<CliOptions>) => runCli(args, cliOptions(options));
    const must = async (args: string[], options?: Partial<CliOptions>) => {
      const result = await svc(args, options);
      if (result.code !== 0) throw new Error(describeResult(args, result));
      return result;
    };

    // Signed in the way a person does on a dev server; the worker token minted by an administrator.
    await must(['login', '--url', url, '--dev-user', 'alice']);
    const token = (JSON.parse(readFileSync(config, 'utf8')) as { token: string }).token;
    const workerToken = (await must(['token', 'create', '--scope', 'worker', '--dev-user', 'root'])).stdout.trim();

    const alice = new Session(url, token);
    const { id: projectId } = await alice.json<{ id: string }>('/projects', { json: { name: 'ci' } });

    const workerConfig = path.join(dir, 'worker.yaml');
    writeFileSync(
      workerConfig,
      stringify({
        server_url: url,
        token_env: 'SVC_E2E_WORKER_TOKEN',
        name: WORKER_NAME,
        capacity: 4,
        workspace_root: path.join(dir, 'worker-workspaces'),
        llm: { base_url: llm.url, api_key: 'sk-e2e', model: 'scripted-e2e', timeout_seconds: 20, max_retries: 0 },
        command_timeout_seconds: 120,
        max_turns_per_step: 12,
      }),
    );
    const started = spawnProcess('worker', process.execPath, [WORKER_CLI, '--config', workerConfig], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, SVC_E2E_WORKER_TOKEN: workerToken },
    });
    worker = started;
    await eventually(
      async () => {
        if (started.exit) throw new StopWaiting(`the worker exited ${JSON.stringify(started.exit)}\n${started.tail()}`);
        const workers = await alice.json<{ name: string; status: string }[]>('/workers');
        return workers.some((w) => w.name === WORKER_NAME && w.status === 'online');
      },
      { what: 'the worker to register', intervalMs: 100, detail: () => started.tail() },
    );
    const server = api;
    const diagnostics = () => [server.process.tail(40), started.tail(60)].join('\n');
    const workflow = (id: string) => alice.json<Workflow>(`/workflows/${id}`);
    return {
      api: server,
      llm,
      worker: started,
      dir,
      config,
      token,
      alice,
      projectId,
      svc,
      svcExiting: async (args, expected, options) => {
        const result = await svc(args, options);
        if (result.code !== expected)
          throw new Error(`expected exit ${expected}\n${describeResult(args, result)}\n${diagnostics()}`);
        return result;
      },
      start: (args, options) => startCli(args, cliOptions(options)),
      workflow,
      waitForStatus: (id, status) =>
        eventually(
          async () => {
            const current = await workflow(id);
            if (current.status === status) return current;
            if (['completed', 'failed', 'cancelled'].includes(current.status))
              throw new StopWaiting(`workflow ${id} ended ${current.status}, not ${status}\n${diagnostics()}`);
            return false;
          },
          { what: `workflow ${id} to be ${status}`, intervalMs: 50, detail: diagnostics },
        ),
      diagnostics,
      leftovers: () => {
        const running = runningCli();
        if (running.length === 0) return null;
        killAllCli();
        const described = running.map((cli) => cli.describe({ code: null, stdout: cli.stdout, stderr: cli.stderr }));
        return `svc still running after the test:\n${described.join('\n')}\n${diagnostics()}`;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The suite's hooks around its stack: after each test, what a timed-out `svc` had printed and what the
 * server and worker logged; after all, the stack stopped.
 */
export function closeStackAfterSuite(stack: () => CliStack | undefined): void {
  afterEach(() => {
    const leftovers = stack()?.leftovers();
    if (leftovers) console.error(leftovers);
  });
  afterAll(async () => {
    await stack()?.close();
  });
}
