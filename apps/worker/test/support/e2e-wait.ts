/** Thrown by a probe when waiting longer cannot help (e.g. the workflow ended otherwise). */
export class StopWaiting extends Error {}

/** Polls `probe` until it returns something other than undefined/null/false, or fails after `timeoutMs`. */
export async function waitUntil<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: { what: string; timeoutMs?: number; intervalMs?: number; detail?: () => string },
): Promise<T> {
  const { what, timeoutMs = 30_000, intervalMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
      lastError = undefined;
    } catch (err) {
      if (err instanceof StopWaiting) throw err;
      lastError = err;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      const detail = options.detail ? `\n${options.detail()}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
