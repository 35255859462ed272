import { mkdir } from 'node:fs/promises';
import { workflowDir } from '../workspace/paths';
import type { JobTokenSource } from './job-token';
import { runCommand, type CommandResult } from './run-command';

/** Bytes of output the executor keeps per command before the context budget cuts it further. */
export const CAPTURE_MAX_BYTES = 1024 * 1024;

export interface ExecutorOptions {
  /** Environment the worker runs in; the base of every command's environment. */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** Variables never passed on (the worker token, the LLM key). */
  secretEnvNames: readonly string[];
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
  command: string;
  timeoutSeconds?: number;
  /** Output kept (head and tail); default CAPTURE_MAX_BYTES. */
  maxOutputBytes?: number;
  signal?: AbortSignal;
}

/** Runs agent commands in the workflow's workspace with the SVC_* environment. */
export class Executor {
  constructor(private readonly options: ExecutorOptions) {}

  async run(request: ExecRequest): Promise<CommandResult> {
    const cwd = workflowDir(this.options.workspaceRoot, request.workflowId);
    await mkdir(cwd, { recursive: true });
    const job = await this.options.jobTokens.tokenFor({ workflowId: request.workflowId, projectId: request.projectId });
    return runCommand({
      command: request.command,
      cwd,
      env: this.environment(request.workflowId, job.projectId ?? '', job.token),
      timeoutMs: (request.timeoutSeconds ?? this.options.defaultTimeoutSeconds) * 1000,
      maxOutputBytes: request.maxOutputBytes ?? this.options.captureMaxBytes ?? CAPTURE_MAX_BYTES,
      killGraceMs: this.options.killGraceMs,
      signal: request.signal,
    });
  }

  private environment(workflowId: string, projectId: string, jwt: string): Record<string, string> {
    const env: Record<string, string> = {};
    const secrets = new Set(this.options.secretEnvNames);
    for (const [name, value] of Object.entries(this.options.baseEnv)) {
      if (value !== undefined && !secrets.has(name) && !name.startsWith('SVC_')) env[name] = value;
    }
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
