import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Executor } from '../../src/executor/executor';
import { LocalJobTokenSigner } from '../../src/executor/job-token';
import { DEFAULT_SANDBOX_SETTINGS, Sandbox } from '../../src/executor/sandbox';
import type { CommandLimits } from '../../src/executor/command-limits';

const MiB = 1024 * 1024;

/** Node inside the sandbox (the host's /usr is mounted): a fork loop and an allocation without bash's fork retries. */
const nodeScript = (script: string): string => `${process.execPath} -e '${script}'`;

/**
 * Finding 9c of issue 21: a command's /tmp and /var/tmp are size-capped tmpfs mounts, and its
 * processes together have a memory and a process cap.
 */
describe('the command sandbox limits through the executor', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-sandbox-limits-'));
  let makeExecutor: (limits: Partial<CommandLimits>) => Executor;

  beforeAll(async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const signer = await LocalJobTokenSigner.fromPem(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), {
      issuer: 'svc',
      audience: 'svc',
    });
    makeExecutor = (limits) =>
      new Executor({
        baseEnv: { PATH: process.env.PATH },
        secretEnvNames: [],
        serverUrl: 'http://127.0.0.1:9',
        workspaceRoot: path.join(dir, 'workspaces'),
        jobTokens: signer,
        defaultTimeoutSeconds: 120,
        sandbox: new Sandbox({
          ...DEFAULT_SANDBOX_SETTINGS,
          limits: { ...DEFAULT_SANDBOX_SETTINGS.limits, ...limits },
        }),
      });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops writes past sandbox_tmp_max_bytes in /tmp and /var/tmp with ENOSPC', async () => {
    const command = ['/tmp', '/var/tmp']
      .map((d) => `head -c ${16 * MiB} /dev/zero 2>&1 >${d}/big; echo "${d} exit=$? size=$(stat -c %s ${d}/big)"`)
      .join('\n');
    const result = await makeExecutor({ tmpMaxBytes: 8 * MiB }).run({ workflowId: 'wf-tmp', command });
    expect(result.output).toContain('No space left on device');
    expect(result.output).toContain(`/tmp exit=1 size=${8 * MiB}\n`);
    expect(result.output).toContain(`/var/tmp exit=1 size=${8 * MiB}\n`);
  });

  it('stops a fork loop at sandbox_max_processes', async () => {
    const forkLoop = nodeScript(
      'const { spawn } = require("node:child_process"); let n = 0;' +
        '(function next() { const c = spawn("sleep", ["600"]);' +
        ' c.on("error", (e) => { console.log("stopped after", n, e.code); process.exit(0); });' +
        ' c.on("spawn", () => (++n > 2000 ? (console.log("not stopped"), process.exit(1)) : next())); })();',
    );
    const result = await makeExecutor({ maxProcesses: 64 }).run({ workflowId: 'wf-fork', command: forkLoop });
    const stopped = /stopped after (\d+) EAGAIN/.exec(result.output);
    expect(stopped).not.toBeNull();
    expect(Number(stopped![1])).toBeLessThan(64);
  });

  it('kills a command past sandbox_memory_max_bytes, and not one within it', async () => {
    const allocate = (mib: number): string =>
      nodeScript(
        `const kept = []; for (let i = 0; i < ${mib / 16}; i++) kept.push(Buffer.alloc(${16 * MiB}, 1)); console.log("allocated ${mib} MiB");`,
      );
    const capped = makeExecutor({ memoryMaxBytes: 128 * MiB });
    const within = await capped.run({ workflowId: 'wf-mem', command: allocate(32) });
    expect(within.output).toBe('allocated 32 MiB\n');
    const past = await capped.run({ workflowId: 'wf-mem', command: `${allocate(512)}; echo "exit=$?"` });
    expect(past.output).not.toMatch(/^allocated/m);
    expect(past.output).toContain('exit=137');
  });
});
