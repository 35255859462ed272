import { backoffDelay } from '@svc/client';
import OpenAI from 'openai';
import { errorMessage } from '../util/logger';

/** Why one attempt of an LLM call failed, and what a retry of it would need. */
export interface AttemptFailure {
  reason: string;
  /** The HTTP status the endpoint answered with, if it answered. */
  status?: number;
  retryable: boolean;
  /** The wait the server asked for (`retry-after`), if any. */
  serverDelayMs?: number;
  /** Said to the LLM in the retry of a bad reply; such a retry does not wait. */
  nudge?: string;
}

export type RetryDecision = { retry: true; waitMs: number } | { retry: false; reason: string };

export interface RetryLimits {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** A longer `retry-after` fails the call instead of being waited for. */
  maxRetryAfterSeconds: number;
  /** First back-off delay; doubles per retry up to `maxMs`. */
  baseMs: number;
  maxMs: number;
}

/** Whether, and after how long, a failed attempt of an LLM call is tried again. */
export class RetryPolicy {
  constructor(private readonly limits: RetryLimits) {}

  decide(failure: AttemptFailure, attempt: number): RetryDecision {
    const giveUp = this.giveUpReason(failure, attempt);
    return giveUp === null ? { retry: true, waitMs: this.waitMs(failure, attempt) } : { retry: false, reason: giveUp };
  }

  private giveUpReason(failure: AttemptFailure, attempt: number): string | null {
    if (!failure.retryable || attempt > this.limits.maxRetries) return failure.reason;
    const { maxRetryAfterSeconds } = this.limits;
    if (failure.serverDelayMs !== undefined && failure.serverDelayMs > maxRetryAfterSeconds * 1000)
      return (
        `${failure.reason}; the server asked to retry after ${failure.serverDelayMs / 1000} s,` +
        ` more than llm.max_retry_after_seconds (${maxRetryAfterSeconds})`
      );
    return null;
  }

  /** A bad reply came back at once: ask again without waiting. A failed request waits as asked, or backs off. */
  private waitMs(failure: AttemptFailure, attempt: number): number {
    if (failure.nudge !== undefined) return 0;
    return failure.serverDelayMs ?? backoffDelay(attempt - 1, { baseMs: this.limits.baseMs, maxMs: this.limits.maxMs });
  }
}

function retryableError(err: unknown): boolean {
  if (err instanceof OpenAI.APIConnectionError) return true; // includes time-outs
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    return err.status === 408 || err.status === 409 || err.status === 429 || err.status >= 500;
  }
  return false;
}

/** The failure of a request that threw (an HTTP error, a time-out, a lost connection). */
export function requestFailure(err: unknown): AttemptFailure {
  const apiError = err instanceof OpenAI.APIError ? err : undefined;
  const status = apiError?.status;
  return {
    reason: `${status ? `HTTP ${status}: ` : ''}${errorMessage(err)}`,
    status,
    retryable: retryableError(err),
    serverDelayMs: apiError ? serverDelayMs(apiError.headers) : undefined,
  };
}

function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const ms = Number(value);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** `retry-after` in seconds or as an HTTP date; a date in the past means now. */
function retryAfter(value: string, now: number): number | undefined {
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Delay the server asked for (`retry-after-ms`, or `retry-after` in seconds or as an HTTP date), if any. */
export function serverDelayMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = retryAfterMs(headers.get('retry-after-ms'));
  if (ms !== undefined) return ms;
  const after = headers.get('retry-after')?.trim();
  return after ? retryAfter(after, now) : undefined;
}
