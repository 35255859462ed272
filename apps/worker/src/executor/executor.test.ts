import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { calculateJwkThumbprint, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { describeCommandResult, Executor } from './executor';
import { LocalJobTokenSigner } from './job-token';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

/** Running (a zombie waiting for a reaper counts as dead). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Polls `probe` until it returns something truthy; the limit only stops a hang. */
async function until<T>(probe: () => T, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function makeExecutor(overrides: { captureMaxBytes?: number } = {}) {
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'svc-exec-'));
  const signer = await LocalJobTokenSigner.fromPem(pem, { issuer: 'svc', audience: 'svc' });
  const executor = new Executor({
    baseEnv: { PATH: process.env.PATH, HOME: '/tmp', WORKER_TOKEN: 'secret-token', SVC_WORKER_CONFIG: '/etc/w.yaml' },
    secretEnvNames: ['WORKER_TOKEN'],
    serverUrl: 'http://svc.test:3000',
    workspaceRoot,
    jobTokens: signer,
    defaultTimeoutSeconds: 30,
    killGraceMs: 300,
    ...overrides,
  });
  return { executor, workspaceRoot, signer };
}

describe('Executor', () => {
  it('runs in the workflow workspace with the SVC_* variables and without secrets', async () => {
    const { executor, workspaceRoot } = await makeExecutor();
    const result = await executor.run({
      workflowId: 'wf1',
      projectId: 'p1',
      command:
        'pwd; echo "url=$SVC_URL project=$SVC_PROJECT_ID wf=$SVC_WORKFLOW_ID secret=${WORKER_TOKEN:-none} cfg=${SVC_WORKER_CONFIG:-none}"; echo "$SVC_JWT" > jwt.txt',
    });
    expect(result.exitCode).toBe(0);
    expect(result.output).toBe(
      `${path.join(workspaceRoot, 'wf1')}\nurl=http://svc.test:3000 project=p1 wf=wf1 secret=none cfg=none\n`,
    );
  });

  it('injects an ES256 job token with the thumbprint kid and the job claims', async () => {
    const { executor, workspaceRoot } = await makeExecutor();
    await executor.run({ workflowId: 'wf2', projectId: 'p9', command: 'printf %s "$SVC_JWT" > jwt.txt' });
    const jwt = readFileSync(path.join(workspaceRoot, 'wf2', 'jwt.txt'), 'utf8');
    const { payload } = await jwtVerify(jwt, publicKey, { issuer: 'svc', audience: 'svc', algorithms: ['ES256'] });
    expect(payload).toMatchObject({ sub: 'job:wf2', scope: 'job', workflow_id: 'wf2', project_id: 'p9' });
    expect(typeof payload.jti).toBe('string');
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
    const thumbprint = await calculateJwkThumbprint(publicKey.export({ format: 'jwk' }) as JWK, 'sha256');
    expect(decodeProtectedHeader(jwt).kid).toBe(thumbprint);
  });

  it('reports a non-zero exit code as an error with stderr captured', async () => {
    const { executor } = await makeExecutor();
    const result = await executor.run({ workflowId: 'wf3', command: 'echo oops >&2; exit 3' });
    expect(result.exitCode).toBe(3);
    expect(describeCommandResult(result, 30)).toEqual({ text: '[exit code 3]\noops\n', isError: true });
  });

  it('kills the command when it runs past its time-out', async () => {
    const { executor } = await makeExecutor();
    const result = await executor.run({ workflowId: 'wf4', command: 'echo begin; sleep 30', timeoutSeconds: 0.3 });
    // Killed by the time-out's SIGTERM, not ended by itself.
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGTERM' });
    expect(describeCommandResult(result, 0.3).text).toMatch(
      /^\[timed out after 0.3s \(process group killed\)\]\nbegin/,
    );
  });

  it('kills the whole process group on cancel, including background children', async () => {
    const { executor, workspaceRoot } = await makeExecutor();
    const controller = new AbortController();
    const running = executor.run({
      workflowId: 'wf5',
      command: 'sleep 60 & echo $! > child.pid; wait',
      signal: controller.signal,
    });
    const pidFile = path.join(workspaceRoot, 'wf5', 'child.pid');
    const childPid = await until(
      () => (existsSync(pidFile) ? Number.parseInt(readFileSync(pidFile, 'utf8'), 10) || 0 : 0),
      'the background child to start',
    );
    expect(isAlive(childPid)).toBe(true);
    controller.abort();
    const result = await running;
    expect(result.cancelled).toBe(true);
    await until(() => !isAlive(childPid), `background child ${childPid} to end`);
  });

  it('escalates to SIGKILL when the command ignores SIGTERM', async () => {
    const { executor } = await makeExecutor();
    const result = await executor.run({
      workflowId: 'wf7',
      command: 'trap "" TERM; sleep 30 & wait; sleep 30',
      timeoutSeconds: 0.2,
    });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
  });

  it('caps captured output, keeping the head and the tail', async () => {
    const { executor } = await makeExecutor({ captureMaxBytes: 1000 });
    const result = await executor.run({
      workflowId: 'wf6',
      command: 'echo START; head -c 100000 /dev/zero | tr "\\0" x; echo; echo END',
    });
    expect(result.outputBytes).toBe(6 + 100000 + 1 + 4);
    expect(result.truncated).toBe(true);
    expect(result.output.startsWith('START\nxxx')).toBe(true);
    expect(result.output.endsWith('xxx\nEND\n')).toBe(true);
    expect(result.output).toContain('bytes of output omitted');
    expect(Buffer.byteLength(result.output)).toBeLessThan(1100);
  });

  it('refuses a workflow id that is not a plain directory name', async () => {
    const { executor } = await makeExecutor();
    await expect(executor.run({ workflowId: '../escape', command: 'true' })).rejects.toThrow(
      'cannot be used as a directory name',
    );
  });
});
