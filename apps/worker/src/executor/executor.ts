import { mkdir } from 'node:fs/promises';
import type { RunSecrets } from '../secrets/run-secrets';
import { workflowDir } from '../workspace/paths';
import type { JobToken, JobTokenSource } from './job-token';
import { runCommand, type CommandResult } from './run-command';
import { startBackground, type BackgroundProcess } from './background-process';
import { DEFAULT_SANDBOX_SETTINGS, Sandbox } from './sandbox';

/** Bytes of output the executor keeps per command before the context budget cuts it further. */
export const CAPTURE_MAX_BYTES = 1024 * 1024;

/**
 * Variables of the worker's environment that reach a command (besides `passEnvNames` and the SVC_*
 * variables the executor sets): the search path, locale, time zone and proxies. Nothing else: the
 * worker's environment holds its token and LLM key.
 */
export const COMMAND_ENV_ALLOWED = [
  'PATH',
  'HOME',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
];

export interface ExecutorOptions {
  /** Environment the worker runs in; the allowed variables of it are passed on. */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** Variables never passed on (the worker token, the LLM key), even when named in `passEnvNames`. */
  secretEnvNames: readonly string[];
  /** Further variables of `baseEnv` passed on (config `command_env`). */
  passEnvNames?: readonly string[];
  /** Where commands run; default: bubblewrap with the default settings. */
  sandbox?: Sandbox;
  serverUrl: string;
  workspaceRoot: string;
  jobTokens: JobTokenSource;
  defaultTimeoutSeconds: number;
  captureMaxBytes?: number;
  killGraceMs?: number;
}

export interface ExecRequest {
  workflowId: string;
  projectId?: string;
  /** SVC_JWT handed over with the request (another worker's `exec`); otherwise from `jobTokens`. */
  jobToken?: JobToken;
  command: string;
  timeoutSeconds?: number;
  /** Output kept (head and tail); default CAPTURE_MAX_BYTES. */
  maxOutputBytes?: number;
  signal?: AbortSignal;
  /** Sees the output as it arrives (live output to the server), after the secrets were masked in it. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /** The run's secrets: environment variables of the command, masked in its output. */
  secrets?: RunSecrets;
}

/** Runs agent commands in the workflow's workspace with the SVC_* environment. */
export class Executor {
  private readonly sandbox: Sandbox;

  constructor(private readonly options: ExecutorOptions) {
    this.sandbox = options.sandbox ?? new Sandbox(DEFAULT_SANDBOX_SETTINGS);
  }

  async run(request: ExecRequest): Promise<CommandResult> {
    const cwd = workflowDir(this.options.workspaceRoot, request.workflowId);
    await mkdir(cwd, { recursive: true });
    const job =
      request.jobToken ??
      (await this.options.jobTokens.tokenFor({
        workflowId: request.workflowId,
        projectId: request.projectId,
        signal: request.signal,
      }));
    const sandboxed = await this.sandbox.wrap({
      command: request.command,
      cwd,
      env: this.environment(request.workflowId, job.projectId ?? '', job.token, request.secrets),
      workspaceRoot: this.options.workspaceRoot,
      svcUrl: this.options.serverUrl,
    });
    return runCommand({
      command: request.command,
      argv: [sandboxed.file, ...sandboxed.args],
      cwd,
      env: sandboxed.env,
      timeoutMs: (request.timeoutSeconds ?? this.options.defaultTimeoutSeconds) * 1000,
      maxOutputBytes: request.maxOutputBytes ?? this.options.captureMaxBytes ?? CAPTURE_MAX_BYTES,
      killGraceMs: this.options.killGraceMs,
      signal: request.signal,
      onOutput: request.onOutput,
      masker: request.secrets?.masker,
      lifecycle: sandboxed.lifecycle,
    });
  }

  /**
   * Starts `command` (bash) as a long-lived program in the workflow's sandbox and workspace, with the
   * commands' environment (without SVC_JWT: it acts for nobody) and `env` over it: a stdio MCP server.
   * In `none` mode it runs without the supervisor, whose background job would lose the piped stdin.
   */
  async startBackground(request: {
    workflowId: string;
    projectId: string;
    command: string;
    env: Record<string, string>;
  }): Promise<BackgroundProcess> {
    const cwd = workflowDir(this.options.workspaceRoot, request.workflowId);
    await mkdir(cwd, { recursive: true });
    const { SVC_JWT: _none, ...base } = this.environment(request.workflowId, request.projectId, '');
    const env = { ...base, ...request.env };
    const sandboxed =
      this.sandbox.settings.mode === 'none'
        ? { file: 'bash', args: ['-c', request.command], env }
        : await this.sandbox.wrap({
            command: request.command,
            cwd,
            env,
            workspaceRoot: this.options.workspaceRoot,
            svcUrl: this.options.serverUrl,
          });
    return startBackground(sandboxed, cwd, this.options.killGraceMs);
  }

  /**
   * The allowed part of the worker's environment (with `command_env`), then the run's secrets (a
   * secret wins over a worker variable of the same name), then the service's SVC_* variables.
   */
  private environment(
    workflowId: string,
    projectId: string,
    jwt: string,
    secrets?: RunSecrets,
  ): Record<string, string> {
    const env: Record<string, string> = {};
    const hidden = new Set(this.options.secretEnvNames);
    const allowed = new Set([...COMMAND_ENV_ALLOWED, ...(this.options.passEnvNames ?? [])]);
    for (const [name, value] of Object.entries(this.options.baseEnv)) {
      const passed = allowed.has(name) || name.startsWith('LC_');
      if (value !== undefined && passed && !hidden.has(name) && !name.startsWith('SVC_')) env[name] = value;
    }
    // Secret names never start with SVC_ (SecretNameSchema); the service's variables are set after them anyway.
    Object.assign(env, secrets?.env());
    env.SVC_JWT = jwt;
    env.SVC_URL = this.options.serverUrl;
    env.SVC_PROJECT_ID = projectId;
    env.SVC_WORKFLOW_ID = workflowId;
    return env;
  }
}

/** The command result as text for the agent (and the execution log). */
export function describeCommandResult(
  result: CommandResult,
  timeoutSeconds: number,
): { text: string; isError: boolean } {
  if (result.startError) return { text: result.startError, isError: true };
  const status = result.cancelled
    ? 'cancelled'
    : result.timedOut
      ? `timed out after ${timeoutSeconds}s (process group killed)`
      : result.exitCode !== null
        ? `exit code ${result.exitCode}`
        : `killed by ${result.signal ?? 'a signal'}`;
  const body = result.output.length > 0 ? result.output : '(no output)';
  return { text: `[${status}]\n${body}`, isError: result.exitCode !== 0 };
}
