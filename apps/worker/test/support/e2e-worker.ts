import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { assertBuiltFresh, spawnProcess, type ManagedProcess } from '@svc/test-kit';

const WORKER_DIR = path.resolve(__dirname, '../..');
const CLI = path.join(WORKER_DIR, 'dist/cli.js');

/** The e2e tests run the built CLI; a build older than the sources would test old code. */
export const assertWorkerBuilt = (): void => assertBuiltFresh(WORKER_DIR, CLI, '@svc/worker');

export interface WorkerProcessOptions {
  dir: string;
  serverUrl: string;
  token: string;
  llmUrl: string;
  name: string;
  /** Extra config keys (snake_case), e.g. `jwt_private_key`. */
  config?: Record<string, unknown>;
  /** Extra command-line flags, e.g. `--once`. */
  args?: readonly string[];
  /** Extra environment of the process, e.g. OTEL_* variables. */
  env?: Record<string, string>;
}

/** Writes `<dir>/<name>.yaml` for the real CLI; the token travels in the environment (`token_env`). */
export function writeWorkerConfig(options: WorkerProcessOptions): string {
  const file = path.join(options.dir, `${options.name}.yaml`);
  const config = {
    server_url: options.serverUrl,
    token_env: 'SVC_E2E_WORKER_TOKEN',
    name: options.name,
    capacity: 2,
    workspace_root: path.join(options.dir, `${options.name}-workspaces`),
    llm: { base_url: options.llmUrl, api_key: 'sk-e2e', model: 'scripted-e2e', timeout_seconds: 20, max_retries: 2 },
    command_timeout_seconds: 120,
    max_turns_per_step: 12,
    ...options.config,
  };
  writeFileSync(file, stringify(config));
  return file;
}

/** `node apps/worker/dist/cli.js --config <file>` as its own process. */
export function startWorkerProcess(options: WorkerProcessOptions): ManagedProcess {
  assertWorkerBuilt();
  const configFile = writeWorkerConfig(options);
  return spawnProcess(
    `worker ${options.name}`,
    process.execPath,
    [CLI, '--config', configFile, ...(options.args ?? [])],
    {
      cwd: options.dir,
      env: { PATH: process.env.PATH, HOME: options.dir, SVC_E2E_WORKER_TOKEN: options.token, ...options.env },
    },
  );
}
