#!/usr/bin/env node
import os from 'node:os';
import pino from 'pino';
import { ConfigError, loadConfig } from './config';
import { readWorkerEnv, type WorkerEnv } from './env';
import { JobTokenError } from './executor/job-token';
import { Sandbox, SandboxError } from './executor/sandbox';
import { DEFAULT_PROMPTS_DIR, loadPrompts, PromptsError } from './prompts';
import { errorMessage } from './util/logger';
import { startWorker, WORKER_VERSION } from './worker';

/** Exit codes: 0 stopped by a signal, 1 the server refused the worker, 2 bad usage or configuration. */
export const EXIT_OK = 0;
export const EXIT_FATAL = 1;
export const EXIT_CONFIG = 2;

const USAGE = `Usage: svc-worker --config <worker.yaml>

Registers with the svc server and runs agent workflows.
  -c, --config <file>   worker config (YAML); default: $SVC_WORKER_CONFIG
      --check           check the config, the prompts and the command sandbox, then exit
  -h, --help            show this help
  -v, --version         show the version`;

export type CliArgs =
  | { kind: 'run'; configPath: string | undefined; check: boolean }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'error'; message: string };

export function parseArgs(argv: readonly string[]): CliArgs {
  // `pnpm --filter @svc/worker dev -- --config x` (the README) passes its `--` on; the worker takes no operands.
  const args = argv.filter((arg) => arg !== '--');
  let configPath: string | undefined;
  let check = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '-h' || arg === '--help') return { kind: 'help' };
    if (arg === '-v' || arg === '--version') return { kind: 'version' };
    if (arg === '--check') {
      check = true;
      continue;
    }
    if (arg === '-c' || arg === '--config') {
      const value = args[++i];
      if (!value) return { kind: 'error', message: `${arg} needs a file path` };
      configPath = value;
    } else if (arg.startsWith('--config=')) {
      configPath = arg.slice('--config='.length);
    } else {
      return { kind: 'error', message: `unknown argument: ${arg}` };
    }
  }
  return { kind: 'run', configPath, check };
}

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM). */
  stopSignal: Promise<string>;
}

/** Runs the worker until a stop signal or a fatal link error; returns the exit code. */
export async function main(argv: readonly string[], env: WorkerEnv, io: CliIo): Promise<number> {
  const args = parseArgs(argv);
  if (args.kind === 'help') return (io.stdout(`${USAGE}\n`), EXIT_OK);
  if (args.kind === 'version') return (io.stdout(`${WORKER_VERSION}\n`), EXIT_OK);
  if (args.kind === 'error') return (io.stderr(`svc-worker: ${args.message}\n\n${USAGE}\n`), EXIT_CONFIG);
  const configPath = args.configPath ?? env.configPath;
  if (!configPath)
    return (io.stderr(`svc-worker: no config file: pass --config <file> or set SVC_WORKER_CONFIG\n`), EXIT_CONFIG);

  let worker;
  try {
    const config = loadConfig(configPath, { env: env.vars, hostname: os.hostname() });
    const promptsDir = config.promptsDir ?? DEFAULT_PROMPTS_DIR;
    const prompts = loadPrompts(promptsDir);
    if (args.check) {
      const sandbox = new Sandbox(config.sandbox);
      await sandbox.check();
      for (const warning of sandbox.warnings()) io.stderr(`svc-worker: warning: ${warning}\n`);
      io.stdout(`config ok: ${configPath}\nprompts: ${promptsDir}\nsandbox: ${config.sandbox.mode}\n`);
      return EXIT_OK;
    }
    const logger = pino({ name: 'svc-worker', base: { worker: config.name } });
    let fatal: ((message: string) => void) | undefined;
    const fatalError = new Promise<string>((resolve) => (fatal = resolve));
    worker = await startWorker({
      config,
      prompts,
      baseEnv: env.vars,
      hostname: os.hostname(),
      logger,
      onFatal: (error) => fatal?.(error.message),
    });
    logger.info({ server: config.serverUrl, capacity: config.capacity }, 'svc-worker started');
    const outcome = await Promise.race([
      io.stopSignal.then((signal) => ({ signal })),
      fatalError.then((error) => ({ error })),
    ]);
    await worker.stop();
    if ('error' in outcome) {
      io.stderr(`svc-worker: ${outcome.error}\n`);
      return EXIT_FATAL;
    }
    logger.info({ signal: outcome.signal }, 'svc-worker stopped');
    return EXIT_OK;
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr(`svc-worker: invalid config ${configPath}:\n${err.problems.map((p) => `  ${p}`).join('\n')}\n`);
      return EXIT_CONFIG;
    }
    if (err instanceof PromptsError || err instanceof JobTokenError || err instanceof SandboxError) {
      io.stderr(`svc-worker: ${err.message}\n`);
      return EXIT_CONFIG;
    }
    io.stderr(`svc-worker: ${errorMessage(err)}\n`);
    await worker?.stop(0);
    return EXIT_FATAL;
  }
}

if (require.main === module) {
  const stopSignal = new Promise<string>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
  });
  const io: CliIo = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), stopSignal };
  main(process.argv.slice(2), readWorkerEnv(), io).then(
    (code) => {
      process.exitCode = code;
      // Open handles (sockets, timers) must not keep a stopped worker alive.
      setTimeout(() => process.exit(code), 100).unref();
    },
    (error: unknown) => {
      process.stderr.write(`svc-worker: internal error: ${errorMessage(error)}\n`);
      process.exit(EXIT_FATAL);
    },
  );
}
