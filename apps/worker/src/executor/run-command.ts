import { spawn, type ChildProcess } from 'node:child_process';
import type { SecretMasker } from '@svc/text';
import { maskedOutput } from './masked-output';
import { HeadTailBuffer } from './output-buffer';

/** What is set up around one spawned command and torn down after it (the sandbox's network, limits). */
export interface CommandLifecycle {
  /** Pipes given to the process as fds 3, 4, ... (for `start` to talk to it). */
  extraPipes: number;
  /** Runs once spawned; the command starts when it resolves. A failure kills the process group. */
  start(child: ChildProcess): Promise<void>;
  /** Runs after the command ended (or failed to start), before the result is returned. */
  release(): Promise<void>;
}

export interface CommandSpec {
  command: string;
  /** What is spawned (e.g. the sandbox wrapping `bash -c <command>`); default `bash -c <command>`. */
  argv?: readonly [string, ...string[]];
  cwd: string;
  /** The complete environment of the command (nothing is inherited implicitly). */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** Bytes of combined stdout+stderr kept (head and tail). */
  maxOutputBytes: number;
  /** Aborting kills the command's whole process group. */
  signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /** How long to keep reading after bash exits while a background child still holds the pipes. */
  drainMs?: number;
  /** Sees every piece of output as it arrives (live output); the result keeps its own capped copy. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /** The run's secrets: masked in both streams before the output is kept or seen by `onOutput`. */
  masker?: SecretMasker;
  lifecycle?: CommandLifecycle;
}

export interface CommandResult {
  /** null when killed by a signal or when the command could not start */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  /** Bytes the command wrote in total (before capping). */
  outputBytes: number;
  truncated: boolean;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** Why the command could not start, when it could not. */
  startError?: string;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/**
 * Runs `bash -c <command>` (or `argv`, the sandbox around it) as the leader of its own process group,
 * so a time-out or a cancel can stop everything it started (SIGTERM to the group, SIGKILL after a
 * grace period). In a bubblewrap sandbox the group holds bwrap and everything inside: the end of
 * bwrap's pid namespace ends every process in it.
 */
export function runCommand(spec: CommandSpec): Promise<CommandResult> {
  const started = Date.now();
  const killGraceMs = spec.killGraceMs ?? 2000;
  const drainMs = spec.drainMs ?? 500;
  const output = new HeadTailBuffer(spec.maxOutputBytes);
  let timedOut = false;
  let cancelled = false;

  return new Promise<CommandResult>((resolve) => {
    if (spec.signal?.aborted) {
      resolve({
        exitCode: null,
        signal: null,
        output: '',
        outputBytes: 0,
        truncated: false,
        timedOut: false,
        cancelled: true,
        durationMs: 0,
      });
      return;
    }
    const [file, ...args] = spec.argv ?? ['bash', '-c', spec.command];
    const child = spawn(file, args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...Array<'pipe'>(spec.lifecycle?.extraPipes ?? 0).fill('pipe')],
    });
    const stdout = child.stdout!;
    const stderr = child.stderr!;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;

    const stop = (): void => {
      if (child.pid === undefined) return;
      const pid = child.pid;
      killGroup(pid, 'SIGTERM');
      setTimeout(() => killGroup(pid, 'SIGKILL'), killGraceMs).unref();
    };
    const onAbort = (): void => {
      cancelled = true;
      stop();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, spec.timeoutMs);
    spec.signal?.addEventListener('abort', onAbort, { once: true });

    let setupError: string | undefined;
    spec.lifecycle?.start(child).catch((err: Error) => {
      if (timedOut || cancelled) return;
      setupError = `command could not start: ${err.message}`;
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
    });

    const masked = (stream: 'stdout' | 'stderr') =>
      maskedOutput(spec.masker, (chunk) => {
        output.push(chunk);
        spec.onOutput?.(stream, chunk);
      });
    const streams = { stdout: masked('stdout'), stderr: masked('stderr') };

    const finish = (startError?: string): void => {
      if (settled) return;
      settled = true;
      // What the masking held back (a possible start of a value) goes out before the result.
      streams.stdout.end();
      streams.stderr.end();
      clearTimeout(timer);
      clearTimeout(drainTimer);
      spec.signal?.removeEventListener('abort', onAbort);
      startError ??= setupError;
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        output: startError ?? output.text(),
        outputBytes: output.totalBytes,
        truncated: output.truncated,
        timedOut,
        cancelled,
        durationMs: Date.now() - started,
        ...(startError ? { startError } : {}),
      });
    };

    stdout.on('data', (chunk: Buffer) => streams.stdout.write(chunk));
    stderr.on('data', (chunk: Buffer) => streams.stderr.write(chunk));
    child.on('error', (err) => finish(`command could not start: ${err.message}`));
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // A background child may keep the pipes open; stop waiting for it after a short drain.
      drainTimer = setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
        finish();
      }, drainMs);
    });
    child.on('close', () => finish());
  }).then(async (result) => {
    await spec.lifecycle?.release();
    return result;
  });
}
