/**
 * What the workflow lifecycle asks of worker dispatch (implemented by dispatch/LiveDispatcher). Every
 * method returns once the request is recorded; delivery to a worker happens asynchronously.
 */
export interface Steering {
  /**
   * A new or re-queued workflow: hand it to its chosen worker or any free one, else it stays pending.
   * `requiresLabels: false` says it requires no worker label (no routing notice can change for it).
   */
  workflowQueued(workflowId: string, requiresLabels?: boolean): Promise<void>;
  /** Title generation, dispatched separately so it never blocks the main flow. */
  generateTitle(workflowId: string): Promise<void>;
  answer(workflowId: string, answer: string): Promise<void>;
  feedback(workflowId: string, message: string): Promise<void>;
  /** Tells the worker running it (if any) to stop. */
  cancel(workflowId: string): Promise<void>;
  retry(workflowId: string): Promise<void>;
  /** Asks the worker running it to stop at its next tool boundary (`interrupt`: kill the running command). */
  pause(workflowId: string, interrupt: boolean): Promise<void>;
  /** A paused workflow goes on: its worker continues where it stopped, or the next one from its snapshot. */
  resumePaused(workflowId: string): Promise<void>;
}

/** The steering of a server with no worker connection: workflows simply stay queued as `pending`. */
export const queueOnlySteering: Steering = {
  workflowQueued: async () => undefined,
  generateTitle: async () => undefined,
  answer: async () => undefined,
  feedback: async () => undefined,
  cancel: async () => undefined,
  retry: async () => undefined,
  pause: async () => undefined,
  resumePaused: async () => undefined,
};

/** The timer schedule, told when timers are created or cancelled so it looks at the table again. */
export interface TimerSchedule {
  notify(): void;
}
