import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '@svc/test-kit';
import { Executor } from '../../src/executor/executor';
import { LocalJobTokenSigner } from '../../src/executor/job-token';
import { DEFAULT_SANDBOX_SETTINGS, Sandbox } from '../../src/executor/sandbox';
import { hostPidsOf, uniqueSleep } from '../support/procs';

/**
 * Real commands through the real executor in the bubblewrap sandbox, trying every way out that
 * finding 1 of issue 13 named: the worker's environment, other processes' environments and memory,
 * the config file, a sibling workspace, signals to other processes.
 */
describe('the command sandbox (bwrap) through the executor', () => {
  const secret = `secret-${randomBytes(8).toString('hex')}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-sandbox-'));
  const workspaceRoot = path.join(dir, 'workspaces');
  const configFile = path.join(dir, 'worker.yaml');
  const siblingFile = path.join(workspaceRoot, 'other-workflow', 'private.txt');
  let decoy: ChildProcess;
  let executor: Executor;
  let makeExecutor: (network: boolean) => Executor;

  beforeAll(async () => {
    writeFileSync(configFile, `token: ${secret}-config\n`, { mode: 0o600 });
    mkdirSync(path.dirname(siblingFile), { recursive: true });
    writeFileSync(siblingFile, `${secret}-sibling\n`);
    // A host process standing in for the worker (and any other tenant): its environment holds a secret.
    decoy = spawn('sleep', [uniqueSleep(600)], {
      env: { PATH: process.env.PATH, SVC_WORKER_TOKEN: `${secret}-decoy-env` },
      stdio: 'ignore',
    });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const signer = await LocalJobTokenSigner.fromPem(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), {
      issuer: 'svc',
      audience: 'svc',
    });
    makeExecutor = (network) =>
      new Executor({
        baseEnv: {
          PATH: process.env.PATH,
          HOME: dir,
          SVC_WORKER_TOKEN: `${secret}-worker-env`,
          OPENAI_API_KEY: `${secret}-llm-key`,
          UNRELATED_WORKER_VARIABLE: `${secret}-unrelated`,
        },
        secretEnvNames: ['SVC_WORKER_TOKEN', 'OPENAI_API_KEY'],
        serverUrl: 'http://svc.test:3000',
        workspaceRoot,
        jobTokens: signer,
        defaultTimeoutSeconds: 60,
        sandbox: new Sandbox({ ...DEFAULT_SANDBOX_SETTINGS, network, hiddenPaths: [configFile] }),
      });
    executor = makeExecutor(true);
  });
  afterAll(() => {
    decoy?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows a command nothing of the worker, other processes, the config or sibling workspaces', async () => {
    // Another workflow's command runs at the same time: its SVC_JWT must stay its own.
    const siblingSleep = uniqueSleep(600);
    const controller = new AbortController();
    const sibling = executor.run({
      workflowId: 'other-workflow',
      projectId: 'p2',
      command: `sleep ${siblingSleep}`,
      signal: controller.signal,
    });
    const siblingPid = await eventually(() => hostPidsOf(['sleep', siblingSleep])[0] ?? false, {
      what: 'the sibling command to start',
    });
    const hostPids = [process.pid, process.ppid, decoy.pid!, siblingPid];

    const probe = [
      'echo "ppid=$PPID"',
      `tr '\\0' '\\n' </proc/$PPID/environ`,
      `for f in /proc/*/environ; do tr '\\0' '\\n' < "$f"; done`,
      'echo "pids=$(ls /proc | grep -E "^[0-9]+$" | tr "\\n" " ")"',
      `for p in ${hostPids.join(' ')}; do`,
      '  kill -0 "$p" 2>/dev/null && echo "signal reached $p"',
      '  cat "/proc/$p/environ" 2>/dev/null && echo "environ of $p read"',
      '  dd if="/proc/$p/mem" bs=1 count=1 skip=4096 2>/dev/null && echo "memory of $p read"',
      'done',
      `cat '${configFile}' && echo "config read"`,
      `cat '${siblingFile}' && echo "sibling read"`,
      `ls -A '${workspaceRoot}'`,
      'cat /etc/shadow && echo "shadow read"',
      'touch /usr/escape /etc/escape 2>/dev/null && echo "system dirs writable"',
      'echo "jwt=${SVC_JWT:+set} url=$SVC_URL project=$SVC_PROJECT_ID workflow=$SVC_WORKFLOW_ID"',
      'echo "uid=$(id -u) home=$HOME"; touch "$HOME/cache" ok-in-workspace && echo "writes ok"',
    ].join('\n');
    const result = await executor.run({ workflowId: 'wf-probe', projectId: 'p1', command: probe });
    controller.abort();
    await sibling;

    const output = result.output;
    expect(output).not.toContain(secret);
    // Environments it can read are its own: one job token, its own workflow, nothing of the sibling's.
    expect(new Set(output.match(/^SVC_JWT=.*$/gm)).size).toBe(1);
    expect(output).toContain('SVC_WORKFLOW_ID=wf-probe\n');
    expect(output).not.toContain('SVC_WORKFLOW_ID=other-workflow');
    expect(output).not.toContain('UNRELATED_WORKER_VARIABLE');
    expect(output).not.toMatch(/signal reached|environ of \d+ read|memory of \d+ read|config read|sibling read/);
    expect(output).not.toMatch(/shadow read|system dirs writable/);
    expect(output).toContain('ppid=1\n');
    const pids = /pids=([\d ]*)/.exec(output)?.[1]?.trim().split(' ').map(Number) ?? [];
    // Only the sandbox's own processes: its init, bash and the pipeline's children.
    expect(Math.max(...pids)).toBeLessThan(50);
    // The workspace root shows only this workflow's own directory.
    expect(output).toMatch(/^wf-probe$/m);
    expect(output).not.toMatch(/^other-workflow$/m);
    expect(output).toContain('jwt=set url=http://svc.test:3000 project=p1 workflow=wf-probe\n');
    expect(output).toContain('uid=1000 home=/tmp/home\nwrites ok\n');
    expect(result.exitCode).toBe(0);
  });

  it("keeps the host's loopback out of reach, with the network on or off", async () => {
    const { createServer } = await import('node:net');
    const server = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;
    try {
      for (const network of [true, false]) {
        const result = await makeExecutor(network).run({ workflowId: 'wf-net', command });
        expect(result.exitCode).not.toBe(0);
        expect(result.output).toContain('Connection refused');
      }
    } finally {
      server.close();
    }
  });

  it('refuses to start a sandbox that cannot run, saying what to do', async () => {
    const missing = new Sandbox({ ...DEFAULT_SANDBOX_SETTINGS, bwrapPath: path.join(dir, 'no-bwrap') });
    await expect(missing.check()).rejects.toThrow(/bubblewrap is not installed at .*no-bwrap.*sandbox: none/);
    const noSlirp = new Sandbox({ ...DEFAULT_SANDBOX_SETTINGS, slirp4netnsPath: path.join(dir, 'no-slirp4netns') });
    await expect(noSlirp.check()).rejects.toThrow(
      /slirp4netns is not installed at .*no-slirp4netns.*apt-get install slirp4netns.*sandbox_network: false/,
    );
    await expect(new Sandbox(DEFAULT_SANDBOX_SETTINGS).check()).resolves.toBeUndefined();
  });
});
