import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_PROMPTS_DIR } from '../src/prompts';
import { eventually } from '@svc/test-kit';
import { SERVER_SETUP_MS, startServerFixture, type ServerFixture } from './support/real-server';

const CLI = path.join(__dirname, '..', 'src', 'cli.ts');

interface Exit {
  code: number | null;
  stderr: string;
}

/** Runs the real CLI (TypeScript through tsx); `whenRunning` may signal it. */
function runCli(
  args: string[],
  env: Record<string, string> = {},
  whenRunning?: (stop: () => void) => void,
): Promise<Exit> {
  return run(process.execPath, ['--conditions=development', '--import', 'tsx', CLI, ...args], env, whenRunning);
}

/** Runs the CLI the README's way from source: `pnpm --filter @svc/worker dev <args>`. */
const runPnpmDev = (args: string[]) => run('pnpm', ['--silent', '--filter', '@svc/worker', 'dev', ...args]);

function run(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  whenRunning?: (stop: () => void) => void,
): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.resume();
    whenRunning?.(() => child.kill('SIGTERM'));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

function writeConfig(text: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-cli-'));
  const file = path.join(dir, 'worker.yaml');
  writeFileSync(file, text);
  return file;
}

const validConfig = (serverUrl: string, extra = '') => `server_url: ${serverUrl}
token_env: TEST_WORKER_TOKEN
name: cli-worker
labels: [linux]
capacity: 3
workspace_root: ./ws
llm:
  base_url: http://127.0.0.1:9/v1
  api_key: sk-x
  model: m
${extra}`;

describe('svc-worker CLI', () => {
  it('exits 2 naming the bad key', async () => {
    const file = writeConfig(
      'server_url: http://localhost:1\ntoken: x\nllm:\n  base_url: http://localhost:2/v1\n  api_key: k\n',
    );
    const exit = await runCli(['--config', file]);
    expect(exit).toEqual({ code: 2, stderr: `svc-worker: invalid config ${file}:\n  llm.model: required\n` });
  });

  it('reads the options after the `--` of `pnpm --filter @svc/worker dev -- --config <file>` (the README)', async () => {
    const file = writeConfig(
      'server_url: http://localhost:1\ntoken: x\nllm:\n  base_url: http://localhost:2/v1\n  api_key: k\n',
    );
    const exit = await runPnpmDev(['--', '--config', file]);
    expect(exit).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`svc-worker: invalid config ${file}:\n  llm.model: required\n`),
    });
  });

  it('reads the config path from SVC_WORKER_CONFIG and exits 2 without any', async () => {
    const exit = await runCli([], { SVC_WORKER_CONFIG: '/nonexistent/w.yaml' });
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain('cannot read config file /nonexistent/w.yaml: ENOENT');
    expect(await runCli([])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('pass --config <file> or set SVC_WORKER_CONFIG'),
    });
  });

  it('refuses to start when a prompt file is missing', async () => {
    const prompts = mkdtempSync(path.join(tmpdir(), 'svc-prompts-'));
    for (const name of ['planning', 'execution', 'title', 'revise'])
      copyFileSync(path.join(DEFAULT_PROMPTS_DIR, `${name}.md`), path.join(prompts, `${name}.md`));
    const file = writeConfig(validConfig('http://127.0.0.1:9', `prompts_dir: ${prompts}\n`));
    const exit = await runCli(['--config', file], { TEST_WORKER_TOKEN: 't' });
    expect(exit).toEqual({
      code: 2,
      stderr: `svc-worker: prompt "report" cannot be read from ${path.join(prompts, 'report.md')} (ENOENT)\n`,
    });
  });

  describe('with the real server', () => {
    let server: ServerFixture;
    beforeAll(async () => {
      server = await startServerFixture();
    }, SERVER_SETUP_MS);
    afterAll(() => server?.close());

    it('registers with the server and stops cleanly on SIGTERM', async () => {
      const file = writeConfig(validConfig(server.api.url));
      mkdirSync(path.join(path.dirname(file), 'ws'));
      const listed = async () =>
        (await server.alice.json<Array<Record<string, unknown>>>('/workers')).find((w) => w.name === 'cli-worker');
      let registrationFailure: unknown = null;
      const exit = await runCli(['--config', file], { TEST_WORKER_TOKEN: server.token }, (stop) => {
        eventually(async () => (await listed())?.status === 'online', { what: 'cli-worker to register' }).then(
          stop,
          (err: unknown) => {
            registrationFailure = err;
            stop();
          },
        );
      });
      expect(registrationFailure).toBeNull();
      expect(exit.code).toBe(0);
      expect(await listed()).toMatchObject({ name: 'cli-worker', labels: ['linux'], capacity: 3 });
    });

    it('exits 1 when the server refuses the token', async () => {
      const exit = await runCli(['--config', writeConfig(validConfig(server.api.url))], {
        TEST_WORKER_TOKEN: 'wrong',
      });
      expect(exit.code).toBe(1);
      expect(exit.stderr).toContain('svc-worker: server refused the worker token (HTTP 401); check token / token_env');
    });
  });
});
