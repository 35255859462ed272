import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { calculateJwkThumbprint, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { eventually } from '@svc/test-kit';
import { hostPidsOf, isAlive, uniqueSleep } from '../../test/support/procs';
import { describeCommandResult, Executor } from './executor';
import { LocalJobTokenSigner } from './job-token';
import { DEFAULT_SANDBOX_SETTINGS, Sandbox, type SandboxMode } from './sandbox';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

async function makeExecutor(overrides: { captureMaxBytes?: number; mode?: SandboxMode } = {}) {
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
    captureMaxBytes: overrides.captureMaxBytes,
    sandbox: new Sandbox({ ...DEFAULT_SANDBOX_SETTINGS, mode: overrides.mode ?? 'bwrap' }),
  });
  return { executor, workspaceRoot, signer };
}

describe.each(['bwrap', 'none'] as const)('Executor (sandbox: %s)', (mode) => {
  it('runs in the workflow workspace with the SVC_* variables and without secrets', async () => {
    const { executor, workspaceRoot } = await makeExecutor({ mode });
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
    const { executor, workspaceRoot } = await makeExecutor({ mode });
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
    const { executor } = await makeExecutor({ mode });
    const result = await executor.run({ workflowId: 'wf3', command: 'echo oops >&2; exit 3' });
    expect(result.exitCode).toBe(3);
    expect(describeCommandResult(result, 30)).toEqual({ text: '[exit code 3]\noops\n', isError: true });
  });

  it('kills the command when it runs past its time-out', async () => {
    const { executor } = await makeExecutor({ mode });
    const result = await executor.run({ workflowId: 'wf4', command: 'echo begin; sleep 30', timeoutSeconds: 0.3 });
    // Killed by the time-out's SIGTERM, not ended by itself (the `none` supervisor reports it as 128 + 15).
    expect(result).toMatchObject(
      mode === 'bwrap'
        ? { timedOut: true, exitCode: null, signal: 'SIGTERM' }
        : { timedOut: true, exitCode: 143, signal: null },
    );
    // Whether `begin` came out before 0.3 s depends on the machine's load, so only the header is asserted here.
    expect(describeCommandResult(result, 0.3).text).toMatch(/^\[timed out after 0.3s \(process group killed\)\]\n/);
  });

  it('keeps the output a command printed before it was stopped', async () => {
    const { executor } = await makeExecutor({ mode });
    const controller = new AbortController();
    let printed = '';
    const running = executor.run({
      workflowId: 'wf4b',
      command: 'echo begin; sleep 30',
      signal: controller.signal,
      onOutput: (_stream, chunk) => {
        printed += chunk.toString();
        if (printed.includes('begin\n')) controller.abort();
      },
    });
    const result = await running;
    expect(result.cancelled).toBe(true);
    expect(result.output).toBe('begin\n');
  });

  it('kills the whole process group on cancel, including background children', async () => {
    const { executor } = await makeExecutor({ mode });
    const controller = new AbortController();
    const seconds = uniqueSleep(60);
    const running = executor.run({ workflowId: 'wf5', command: `sleep ${seconds} & wait`, signal: controller.signal });
    // Inside the sandbox the child has a pid of its own namespace: find it from the host.
    const [childPid] = await eventually(
      () => hostPidsOf(['sleep', seconds]).length === 1 && hostPidsOf(['sleep', seconds]),
      {
        what: 'the background child to start',
      },
    );
    controller.abort();
    const result = await running;
    expect(result.cancelled).toBe(true);
    await eventually(() => !isAlive(childPid!), { what: `background child ${childPid} to end` });
  });

  it('ends a command that ignores SIGTERM (bwrap: with its pid namespace; none: SIGKILL after the grace)', async () => {
    const { executor } = await makeExecutor({ mode });
    const seconds = uniqueSleep(30);
    // Stopped once the trap is set (a time-out could fire before it on a loaded machine); same kill path.
    const controller = new AbortController();
    const result = await executor.run({
      workflowId: 'wf7',
      command: `trap "" TERM; sleep ${seconds} & echo trapped; wait; sleep 30`,
      signal: controller.signal,
      onOutput: (_stream, chunk) => chunk.toString().includes('trapped') && controller.abort(),
    });
    expect(result.cancelled).toBe(true);
    expect(result.signal).toBe(mode === 'bwrap' ? 'SIGTERM' : 'SIGKILL');
    await eventually(() => hostPidsOf(['sleep', seconds]).length === 0, { what: 'the sleep to end' });
  });

  it('caps captured output, keeping the head and the tail', async () => {
    const { executor } = await makeExecutor({ captureMaxBytes: 1000, mode });
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
    const { executor } = await makeExecutor({ mode });
    await expect(executor.run({ workflowId: '../escape', command: 'true' })).rejects.toThrow(
      'cannot be used as a directory name',
    );
  });
});
