#!/usr/bin/env node
import os from 'node:os';
import pino from 'pino';
import { logIdsOptions, startTracing, TracingSettingsError, type Tracing } from '@svc/observability';
import { ConfigError, loadConfig, type WorkerConfig } from './config';
import { readWorkerEnv, type WorkerEnv } from './env';
import { JobTokenError } from './executor/job-token';
import { Sandbox, SandboxError } from './executor/sandbox';
import { DEFAULT_PROMPTS_DIR, loadPrompts, PromptsError } from './prompts';
import { errorMessage, type Logger } from './util/logger';
import { startWorker, WORKER_VERSION, type RunningWorker } from './worker';

/**
 * Exit codes: 0 stopped by a signal (or, with `--once`, its run ended, whatever its outcome), 1 the server
 * refused the worker, 2 bad usage or configuration.
 */
export const EXIT_OK = 0;
export const EXIT_FATAL = 1;
export const EXIT_CONFIG = 2;

const USAGE = `Usage: svc-worker --config <worker.yaml>

Registers with the svc server and runs agent workflows.
  -c, --config <file>   worker config (YAML); default: $SVC_WORKER_CONFIG
      --check           check the config, the prompts and the command sandbox, then exit
      --once            take one run, exit 0 when it ends on this worker (ephemeral runners, autoscaling)
  -h, --help            show this help
  -v, --version         show the version`;

export type CliArgs =
  | { kind: 'run'; configPath: string | undefined; check: boolean; once: boolean }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'error'; message: string };

/** Flags that answer at once, whatever follows them. */
const ANSWER_FLAGS: ReadonlyMap<string, CliArgs> = new Map([
  ['-h', { kind: 'help' }],
  ['--help', { kind: 'help' }],
  ['-v', { kind: 'version' }],
  ['--version', { kind: 'version' }],
]);
const CONFIG_FLAGS: ReadonlySet<string> = new Set(['-c', '--config']);
const CONFIG_PREFIX = '--config=';

export function parseArgs(argv: readonly string[]): CliArgs {
  // `pnpm --filter @svc/worker dev -- --config x` (the README) passes its `--` on; the worker takes no operands.
  const args = argv.filter((arg) => arg !== '--');
  const run = { kind: 'run' as const, configPath: undefined as string | undefined, check: false, once: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const answer = ANSWER_FLAGS.get(arg);
    if (answer) return answer;
    if (arg === '--check') run.check = true;
    else if (arg === '--once') run.once = true;
    else if (CONFIG_FLAGS.has(arg)) {
      const value = args[++i];
      if (!value) return { kind: 'error', message: `${arg} needs a file path` };
      run.configPath = value;
    } else if (arg.startsWith(CONFIG_PREFIX)) run.configPath = arg.slice(CONFIG_PREFIX.length);
    else return { kind: 'error', message: `unknown argument: ${arg}` };
  }
  return run;
}

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM). */
  stopSignal: Promise<string>;
}

/** Answers help, version and usage errors. */
function answer(args: Exclude<CliArgs, { kind: 'run' }>, io: CliIo): number {
  if (args.kind === 'help') io.stdout(`${USAGE}\n`);
  else if (args.kind === 'version') io.stdout(`${WORKER_VERSION}\n`);
  else {
    io.stderr(`svc-worker: ${args.message}\n\n${USAGE}\n`);
    return EXIT_CONFIG;
  }
  return EXIT_OK;
}

/** `--check`: the config and prompts loaded; checks the sandbox and says what was found. */
async function check(config: WorkerConfig, configPath: string, promptsDir: string, io: CliIo): Promise<number> {
  const sandbox = new Sandbox(config.sandbox);
  await sandbox.check();
  for (const warning of sandbox.warnings()) io.stderr(`svc-worker: warning: ${warning}\n`);
  io.stdout(`config ok: ${configPath}\nprompts: ${promptsDir}\nsandbox: ${config.sandbox.mode}\n`);
  return EXIT_OK;
}

/** Stops the started worker at a stop signal or its fatal error, and says which. */
async function runUntilStopped(
  worker: RunningWorker,
  fatalError: Promise<string>,
  logger: Logger,
  io: CliIo,
): Promise<number> {
  const outcome = await Promise.race([
    io.stopSignal.then((signal) => ({ signal })),
    fatalError.then((error) => ({ error })),
    // Never resolves without --once.
    worker.manager.onceEnded.then((end) => ({ end })),
  ]);
  await worker.stop();
  if ('error' in outcome) {
    io.stderr(`svc-worker: ${outcome.error}\n`);
    return EXIT_FATAL;
  }
  if ('end' in outcome) logger.info({ end: outcome.end }, 'svc-worker --once: its run ended; exiting');
  else logger.info({ signal: outcome.signal }, 'svc-worker stopped');
  return EXIT_OK;
}

/** A bad config, prompt directory, job-token key or sandbox exits 2; anything else stops the worker and exits 1. */
async function failed(err: unknown, configPath: string, worker: RunningWorker | undefined, io: CliIo): Promise<number> {
  if (err instanceof ConfigError) {
    io.stderr(`svc-worker: invalid config ${configPath}:\n${err.problems.map((p) => `  ${p}`).join('\n')}\n`);
    return EXIT_CONFIG;
  }
  if (
    err instanceof PromptsError ||
    err instanceof JobTokenError ||
    err instanceof SandboxError ||
    err instanceof TracingSettingsError
  ) {
    io.stderr(`svc-worker: ${err.message}\n`);
    return EXIT_CONFIG;
  }
  io.stderr(`svc-worker: ${errorMessage(err)}\n`);
  await worker?.stop(0);
  return EXIT_FATAL;
}

/** Runs the worker until a stop signal or a fatal link error; returns the exit code. */
export async function main(argv: readonly string[], env: WorkerEnv, io: CliIo): Promise<number> {
  const args = parseArgs(argv);
  if (args.kind !== 'run') return answer(args, io);
  const configPath = args.configPath ?? env.configPath;
  if (!configPath)
    return (io.stderr(`svc-worker: no config file: pass --config <file> or set SVC_WORKER_CONFIG\n`), EXIT_CONFIG);

  let worker: RunningWorker | undefined;
  let tracing: Tracing | undefined;
  try {
    const config = loadConfig(configPath, { env: env.vars, hostname: os.hostname() });
    const promptsDir = config.promptsDir ?? DEFAULT_PROMPTS_DIR;
    const prompts = loadPrompts(promptsDir);
    if (args.check) return await check(config, configPath, promptsDir, io);
    const logger = pino({ name: 'svc-worker', base: { worker: config.name }, ...logIdsOptions });
    // Before the worker: its runs' spans find the tracer provider registered (decision 0051).
    tracing = await startTracing({
      serviceName: 'svc-worker',
      serviceVersion: WORKER_VERSION,
      env: env.vars,
      onShutdownError: (err) => logger.warn({ error: errorMessage(err) }, 'the last trace spans could not be exported'),
    });
    let fatal: ((message: string) => void) | undefined;
    const fatalError = new Promise<string>((resolve) => (fatal = resolve));
    worker = await startWorker({
      config,
      prompts,
      baseEnv: env.vars,
      hostname: os.hostname(),
      logger,
      once: args.once,
      onFatal: (error) => fatal?.(error.message),
    });
    logger.info(
      { server: config.serverUrl, capacity: config.capacity, tracing: tracing.enabled },
      'svc-worker started',
    );
    return await runUntilStopped(worker, fatalError, logger, io);
  } catch (err) {
    return await failed(err, configPath, worker, io);
  } finally {
    // The stopped runs' spans are exported before the process ends.
    await tracing?.shutdown();
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
