import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { UNDER_JEST } from './env';

const MAX_KEPT_CHARS = 200_000;
const live = new Set<ChildProcess>();
// A test that dies half-way must not leave servers or workers behind (in a plain node process: jest's
// sandboxed `process` never sees 'exit').
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Lets a jest run end while the child runs: a test that failed before stopping its server must not keep
 * jest (CI) waiting forever. Its output still arrives while a test or hook runs (jest's time-out timer
 * keeps the process up). Not outside jest: a script awaiting only the child's output would end early.
 */
function releaseFromEventLoop(child: ChildProcess): void {
  child.unref();
  for (const pipe of [child.stdout, child.stderr]) (pipe as Socket | null)?.unref();
}

export type ProcessExit = { code: number | null; signal: NodeJS.Signals | null };

/** A child process with its output kept (the tail) for failure messages, and lines announced as they come. */
export class ManagedProcess {
  private text = '';
  private partial = '';
  private lineListeners = new Set<(line: string) => void>();
  readonly exited: Promise<ProcessExit>;
  exit: ProcessExit | null = null;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    live.add(child);
    if (UNDER_JEST) releaseFromEventLoop(child);
    const keep = (chunk: Buffer) => {
      const text = chunk.toString();
      this.text += text;
      if (this.text.length > MAX_KEPT_CHARS) this.text = this.text.slice(-MAX_KEPT_CHARS / 2);
      const lines = (this.partial + text).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) for (const listener of this.lineListeners) listener(line);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        live.delete(child);
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.name} has no pid (spawn failed)`);
    return this.child.pid;
  }

  get output(): string {
    return this.text;
  }

  /** The last lines of the output, for failure messages. */
  tail(lines = 40): string {
    return `--- ${this.name} (last ${lines} lines) ---\n${this.text.split('\n').slice(-lines).join('\n')}`;
  }

  /**
   * Resolves with the first output line (from now on) that matches; rejects when the process exits
   * first. An event, not a poll.
   */
  nextLine(match: (line: string) => boolean): Promise<string> {
    return new Promise((resolve, reject) => {
      const done = () => this.lineListeners.delete(listener);
      const listener = (line: string) => {
        if (!match(line)) return;
        done();
        resolve(line);
      };
      this.lineListeners.add(listener);
      this.exited.then((exit) => {
        if (!this.lineListeners.has(listener)) return;
        done();
        reject(new Error(`${this.name} exited (${JSON.stringify(exit)}) before the awaited line\n${this.tail()}`));
      }, reject);
    });
  }

  /** Sends `signal` and waits for the exit; SIGKILL after `graceMs` if it is still running. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<ProcessExit> {
    if (this.exit) return this.exit;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}

export function spawnProcess(
  name: string,
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): ManagedProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new ManagedProcess(name, child);
}
