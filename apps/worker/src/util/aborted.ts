/**
 * Thrown when an operation stops because its AbortSignal fired (the workflow was cancelled or its run
 * stopped). Callers tell a stop from a failure by this class, whatever aborted underneath (fetch, the
 * openai client, `node:timers/promises`, a relayed command).
 */
export class AbortedError extends Error {
  constructor(message = 'aborted') {
    super(message);
    this.name = 'AbortedError';
  }
}

/**
 * Runs `work` with a signal of its own that follows `outer`, and takes its listener off `outer` when the
 * work ends. For a library that adds an abort listener to the signal it is given and never removes it
 * (openai's client): given the run-long signal, it would add one per call, and Node warns past 10.
 */
export async function withOwnSignal<T>(
  outer: AbortSignal | undefined,
  work: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (!outer) return work(undefined);
  const own = new AbortController();
  const follow = () => own.abort(outer.reason);
  if (outer.aborted) follow();
  else outer.addEventListener('abort', follow, { once: true });
  try {
    return await work(own.signal);
  } finally {
    outer.removeEventListener('abort', follow);
  }
}
