import { ApiError } from '@svc/client';

/** Exit codes of every command (apps/cli/README.md). */
export const EXIT = {
  /** success; `run --follow`: the workflow completed */
  ok: 0,
  /** the workflow failed, or the command did (server error, network, not found, ...) */
  failed: 1,
  /** the workflow was cancelled, or the command line was wrong (usage) */
  cancelledOrUsage: 2,
  /** the workflow waits for an answer and nothing can give one (not a terminal, no --answer-file) */
  waitingForInput: 3,
} as const;

/** A failure the CLI explains itself: a message for stderr and the exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
    readonly code: string = exitCode === EXIT.cancelledOrUsage ? 'usage' : 'failed',
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string): CliError => new CliError(message, EXIT.cancelledOrUsage, 'usage');

/** The JSON form of any error (`--json`): the contract's `{error: {code, message, ...}}`. */
export function errorJson(error: unknown): { error: Record<string, unknown> } {
  if (error instanceof ApiError)
    return {
      error: { code: error.code, message: error.message, status: error.status, request_id: error.requestId },
    };
  if (error instanceof CliError) return { error: { code: error.code, message: error.message } };
  return { error: { code: 'internal', message: error instanceof Error ? error.message : String(error) } };
}

/** One line for a person. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const hint =
      error.code === 'unauthenticated'
        ? ' (sign in with `svc login`, or set SVC_TOKEN)'
        : error.code === 'not_found'
          ? ' (or you may not see it)'
          : '';
    const id = error.requestId ? ` [request ${error.requestId}]` : '';
    return `${error.message}${hint}${id}`;
  }
  return error instanceof Error ? error.message : String(error);
}
