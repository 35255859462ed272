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
