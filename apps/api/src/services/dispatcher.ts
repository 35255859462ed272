/**
 * What the REST layer asks of worker dispatch (implemented over the worker WebSocket in src/ws/).
 * Every method returns once the request is recorded; delivery to a worker happens asynchronously.
 */
export interface Dispatcher {
  /** A new or re-queued workflow: hand it to its chosen worker or any free one, else it stays pending. */
  workflowQueued(workflowId: string): Promise<void>;
  /** Title generation, dispatched separately so it never blocks the main flow. */
  generateTitle(workflowId: string): Promise<void>;
  answer(workflowId: string, answer: string): Promise<void>;
  feedback(workflowId: string, message: string): Promise<void>;
  cancel(workflowId: string): Promise<void>;
  retry(workflowId: string): Promise<void>;
  /** A timer was created or deleted: the scheduler looks again and the workflow may be handed out. */
  timersChanged?(): void;
}

/** The dispatcher of a server with no worker connection: workflows simply stay queued as `pending`. */
export const queueOnlyDispatcher: Dispatcher = {
  workflowQueued: async () => undefined,
  generateTitle: async () => undefined,
  answer: async () => undefined,
  feedback: async () => undefined,
  cancel: async () => undefined,
  retry: async () => undefined,
};
