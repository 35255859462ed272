import { spawn, type ChildProcess } from 'node:child_process';
import type { SandboxedSpawn } from './sandbox';

/** A long-lived sandboxed program talked to over its stdin and stdout (a stdio MCP server). */
export interface BackgroundProcess {
  readonly child: ChildProcess;
  /** Whatever it wrote to stderr, the last few KiB (for the reason it ended). */
  stderrTail(): string;
  /** Ends its whole process group (SIGTERM, then SIGKILL) and undoes the sandbox's set-up. */
  stop(): Promise<void>;
}

const STDERR_TAIL_BYTES = 4096;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Spawns `sandboxed` in its own process group with stdin, stdout and stderr piped and waits for the
 * sandbox's set-up (network namespace, limits) to let it go. Rejects when it cannot start.
 */
export async function startBackground(
  sandboxed: SandboxedSpawn,
  cwd: string,
  killGraceMs = 2000,
): Promise<BackgroundProcess> {
  const extra = Array<'pipe'>(sandboxed.lifecycle?.extraPipes ?? 0).fill('pipe');
  const child = spawn(sandboxed.file, sandboxed.args, {
    cwd,
    env: sandboxed.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe', ...extra],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  let released: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    released ??= (async () => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        killGroup(child.pid, 'SIGTERM');
        const kill = setTimeout(() => killGroup(child.pid!, 'SIGKILL'), killGraceMs);
        await exited;
        clearTimeout(kill);
      }
      await sandboxed.lifecycle?.release();
    })();
    return released;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    await sandboxed.lifecycle?.start(child);
  } catch (err) {
    await stop();
    throw err;
  }
  return { child, stderrTail: () => stderr, stop };
}
