import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { eventually, spawnProcess, StopWaiting } from '@svc/test-kit';
import type { Worker } from '@svc/protocol';
import { WORKER_VERSION } from '../../src/worker';
import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

const run = promisify(execFile);
const WORKER_DIR = path.resolve(__dirname, '../..');
const REPO_DIR = path.resolve(WORKER_DIR, '../..');

/** Issue 13, finding 7: the packed worker, installed the documented way, outside the repository. */
describe('the packaged worker (svc-worker-<version>.tgz)', () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'svc-dist-')));
  const prefix = path.join(dir, 'prefix');
  const bin = path.join(prefix, 'bin', 'svc-worker');
  let stack: Stack | undefined;

  beforeAll(async () => {
    const { stdout } = await run(process.execPath, [path.join(WORKER_DIR, 'scripts/package.mjs'), '--out', dir]);
    const tarball = stdout.trim();
    expect(path.basename(tarball)).toBe(`svc-worker-${WORKER_VERSION}.tgz`);
    // The documented install: npm install -g <tarball> (here into a prefix of its own).
    await run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], { cwd: dir });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers --version with the package version', async () => {
    const { stdout } = await run(bin, ['--version'], { cwd: dir, env: { PATH: process.env.PATH } });
    expect(stdout).toBe(`${WORKER_VERSION}\n`);
    const manifest = JSON.parse(readFileSync(path.join(WORKER_DIR, 'package.json'), 'utf8')) as { version: string };
    expect(manifest.version).toBe(WORKER_VERSION);
  });

  it('finds its prompts beside itself, outside the repository, and checks its sandbox', async () => {
    const config = path.join(dir, 'check.yaml');
    const base =
      'server_url: http://127.0.0.1:9\ntoken: t\nllm:\n  base_url: http://127.0.0.1:9/v1\n  api_key: k\n  model: m\n';
    writeFileSync(config, base);
    const { stdout } = await run(bin, ['--check', '--config', config], { cwd: dir, env: { PATH: process.env.PATH } });
    const promptsDir = /^prompts: (.*)$/m.exec(stdout)?.[1] ?? '';
    expect(promptsDir).toBe(path.join(prefix, 'lib/node_modules/svc-worker/prompts'));
    expect(path.relative(REPO_DIR, promptsDir).startsWith('..')).toBe(true);
    expect(stdout).toContain('sandbox: bwrap\n');

    // Without bubblewrap the worker refuses to start rather than run commands unsandboxed.
    writeFileSync(config, `${base}sandbox_bwrap_path: /nonexistent/bwrap\n`);
    const refused = await run(bin, ['--config', config], { cwd: dir, env: { PATH: process.env.PATH } }).catch(
      (err: { code: number; stderr: string }) => err,
    );
    expect(refused).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('bubblewrap is not installed at /nonexistent/bwrap'),
    });
  });

  it(
    'registers with the real server and runs a workflow',
    async () => {
      stack = await startStack({
        handler: scriptedAgent({
          planning: [plan('Write a file')],
          steps: {
            1: [
              { name: 'execute_on_worker', arguments: { command: 'echo packaged > out.txt; cat out.txt' } },
              advance(),
            ],
          },
        }),
      });
      const { alice } = stack;
      const config = path.join(dir, 'worker.yaml');
      writeFileSync(
        config,
        stringify({
          server_url: stack.api.url,
          token_env: 'SVC_WORKER_TOKEN',
          name: 'packaged',
          workspace_root: path.join(dir, 'workspaces'),
          llm: { base_url: stack.llm.url, api_key_env: 'OPENAI_API_KEY', model: 'scripted', max_retries: 2 },
        }),
      );
      const worker = spawnProcess('packaged worker', bin, ['--config', config], {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, SVC_WORKER_TOKEN: stack.workerToken, OPENAI_API_KEY: 'sk-packaged' },
      });
      try {
        await eventually(
          async () => {
            if (worker.exit) throw new StopWaiting(`packaged worker exited\n${worker.tail()}`);
            const list = await alice.json<Worker[]>('/workers');
            return list.some((w) => w.name === 'packaged' && w.status === 'online' && w.version === WORKER_VERSION);
          },
          { what: 'the packaged worker to register', detail: () => worker.tail() },
        );
        const { id } = await alice.createWorkflow(stack.projectId, 'Write a file.', { worker_id: 'packaged' });
        await stack.waitForStatus(id, 'completed');
        const log = await alice.log(id);
        expect(log.find((e) => e.tool_name === 'execute_on_worker')?.output).toBe('[exit code 0]\npackaged\n');
      } finally {
        await worker.stop('SIGTERM');
      }
    },
    E2E_TIMEOUT_MS,
  );
});
