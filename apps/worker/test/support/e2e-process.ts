import { spawn, type ChildProcess } from 'node:child_process';

const MAX_KEPT_CHARS = 200_000;
const live = new Set<ChildProcess>();
// A test that dies half-way must not leave servers or workers behind.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A child process with its output kept (the tail) for failure messages. */
export class ManagedProcess {
  private text = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    live.add(child);
    const keep = (chunk: Buffer) => {
      this.text += chunk.toString();
      if (this.text.length > MAX_KEPT_CHARS) this.text = this.text.slice(-MAX_KEPT_CHARS / 2);
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

  /** Sends `signal` and waits for the exit; SIGKILL after `graceMs` if it is still running. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<void> {
    if (this.exit) return;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
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

/** True while a process (or, for a negative id, a process group) exists. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Kills a process group left behind by a killed worker (its commands lead their own groups). */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}
