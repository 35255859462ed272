import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { assertBuiltFresh } from '@svc/test-kit';

const live = new Set<CliProcess>();
// A test that fails half-way must not leave a following `svc` behind.
process.once('exit', () => killAllCli());

/** Kills every `svc` a test started that still runs. */
export function killAllCli(): void {
  for (const cli of live) cli.child.kill('SIGKILL');
}

/** The `svc` processes that still run, oldest first. */
export function runningCli(): CliProcess[] {
  return [...live];
}

const CLI_DIR = path.resolve(__dirname, '../..');
export const CLI_ENTRY = path.join(CLI_DIR, 'dist/cli.js');

/** The tests run the built CLI; a build older than the sources would test old code. */
export const assertCliBuilt = (): void => assertBuiltFresh(CLI_DIR, CLI_ENTRY, '@svc/cli');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** environment on top of PATH and HOME (the caller's environment is not inherited) */
  env?: Record<string, string>;
  cwd: string;
  /** written to stdin, which is then closed; without it stdin is an open pipe the test may write to */
  input?: string | Buffer;
  /** another entry point, e.g. the installed `svc` of the packaged tarball */
  command?: string;
}

/** One `svc` process: its output as it comes (line listeners), stdin to write answers to, its exit. */
export class CliProcess {
  stdout = '';
  stderr = '';
  private partial = '';
  private readonly listeners = new Set<(line: string) => void>();
  readonly exited: Promise<CliResult>;

  constructor(
    readonly args: string[],
    readonly child: ChildProcess,
  ) {
    // Decoded across chunks: a character split between two reads stays whole.
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    child.stdout!.on('data', (text: string) => {
      this.stdout += text;
      const lines = (this.partial + text).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) for (const listener of this.listeners) listener(line);
    });
    child.stderr!.on('data', (text: string) => (this.stderr += text));
    this.exited = new Promise((resolve) =>
      child.once('close', (code) => resolve({ code, stdout: this.stdout, stderr: this.stderr })),
    );
  }

  /** Resolves with the first stdout line (from now on) that matches; rejects if the process ends first. */
  nextLine(match: (line: string) => boolean): Promise<string> {
    return new Promise((resolve, reject) => {
      const listener = (line: string) => {
        if (!match(line)) return;
        this.listeners.delete(listener);
        resolve(line);
      };
      this.listeners.add(listener);
      this.exited.then((result) => {
        if (!this.listeners.delete(listener)) return;
        reject(new Error(`svc ${this.args.join(' ')} exited ${result.code} first\n${result.stdout}\n${result.stderr}`));
      }, reject);
    });
  }

  write(text: string): void {
    this.child.stdin!.write(text);
  }

  endInput(): void {
    this.child.stdin!.end();
  }

  describe(result: CliResult): string {
    return `svc ${this.args.join(' ')} -> ${result.code}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
  }
}

export function startCli(args: string[], options: CliOptions): CliProcess {
  const command = options.command ?? process.execPath;
  const argv = options.command ? args : [CLI_ENTRY, ...args];
  const child = spawn(command, argv, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, HOME: options.cwd, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const cli = new CliProcess(args, child);
  live.add(cli);
  child.once('close', () => live.delete(cli));
  if (options.input !== undefined) child.stdin!.end(options.input);
  return cli;
}

/** Runs `svc <args>` to its end (stdin closed unless `input` is given). */
export async function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  const cli = startCli(args, { ...options, input: options.input ?? '' });
  return cli.exited;
}
