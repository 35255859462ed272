/** Thrown by a check when waiting longer cannot help (e.g. the workflow ended otherwise): `eventually` stops at once. */
export class StopWaiting extends Error {}

export interface EventuallyOptions {
  /** What is awaited, for the failure message. */
  what?: string;
  /** Pause between checks. */
  intervalMs?: number;
  /** Extra text for the failure message (e.g. a process's output). */
  detail?: () => string;
  /**
   * A safety net, not a bound of the test: the test runner's own time-out is what limits a test.
   * It only keeps a forgotten poll from running forever after its test has gone.
   */
  giveUpAfterMs?: number;
}

/** Far above any test's own time-out: `eventually` must never be the thing that fails a slow test. */
export const POLL_SAFETY_CAP_MS = 10 * 60_000;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The one poll helper of the tests: re-runs `check` until it neither throws nor returns `false`, and
 * resolves with what it returned. A check may be an assertion (`() => expect(x).toBe(1)`), a predicate
 * (`() => list.length > 0`) or a probe returning the awaited value (`async () => (await get()) ?? false`).
 * It is not a wall-clock assertion: how long a test may wait is the test runner's time-out.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  options: EventuallyOptions = {},
): Promise<Exclude<T, false>> {
  const { intervalMs = 20, giveUpAfterMs = POLL_SAFETY_CAP_MS } = options;
  const started = Date.now();
  for (;;) {
    const outcome = await attempt(check);
    if (outcome.done) return outcome.value;
    if (Date.now() - started > giveUpAfterMs) throw givenUp(outcome.error, giveUpAfterMs, options);
    await pause(intervalMs);
  }
}

type Attempt<T> = { done: true; value: Exclude<T, false> } | { done: false; error: unknown };

/** One run of the check: its value, or why it is not there yet (a StopWaiting goes on up). */
async function attempt<T>(check: () => T | Promise<T>): Promise<Attempt<T>> {
  try {
    const value = await check();
    return value === false ? { done: false, error: undefined } : { done: true, value: value as Exclude<T, false> };
  } catch (error) {
    if (error instanceof StopWaiting) throw error;
    return { done: false, error };
  }
}

/** The failure of a poll that hit its safety cap: the check's last error, with what was awaited. */
function givenUp(lastError: unknown, giveUpAfterMs: number, options: EventuallyOptions): Error {
  const what = options.what ?? 'a condition';
  const detail = options.detail ? `\n${options.detail()}` : '';
  if (lastError instanceof Error) {
    lastError.message = `gave up waiting for ${what} (safety cap ${giveUpAfterMs} ms): ${lastError.message}${detail}`;
    return lastError;
  }
  return new Error(`gave up waiting for ${what} (safety cap ${giveUpAfterMs} ms)${detail}`);
}
