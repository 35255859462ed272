/** Resolves once `check` passes (it may be async), retrying every 25 ms; rethrows its last failure after `ms`. */
export async function eventually<T>(check: () => T | Promise<T>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
