export interface BackoffOptions {
  /** Delay before the first retry. */
  baseMs: number;
  /** Upper bound of any single delay. */
  maxMs: number;
  /** Fraction of the delay that is randomised: 0 = none, 1 = anywhere between 0 and the full delay. Default 0.5. */
  jitter?: number;
  random?: () => number;
}

/**
 * Exponential back-off with "equal jitter": the delay for `attempt` (0-based) is
 * min(maxMs, baseMs * 2^attempt) with its last `jitter` fraction randomised, so many workers
 * (or browser tabs) reconnecting at once spread out instead of hammering the server together.
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const jitter = Math.min(Math.max(options.jitter ?? 0.5, 0), 1);
  const random = options.random ?? Math.random;
  const exp = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt));
  const fixed = exp * (1 - jitter);
  return Math.round(fixed + exp * jitter * random());
}
