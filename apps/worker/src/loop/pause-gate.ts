import { AbortedError } from '../util/aborted';

/**
 * A member's pause of a run (decision 0039): asked at any time, it takes effect at the next tool boundary
 * (before the next LLM call or tool call), where the run waits in place, its conversation kept, until it
 * is resumed or stopped. With `interrupt` the command running now is killed first; it is recorded as
 * interrupted and the agent sees that in its output.
 */
export class PauseGate {
  private requested = false;
  private interrupter = new AbortController();
  private waiter: { resolve(): void; reject(err: Error): void } | undefined;

  /** Aborted when a pause interrupts the running command (a fresh one after each pause). */
  get commandSignal(): AbortSignal {
    return this.interrupter.signal;
  }

  get paused(): boolean {
    return this.waiter !== undefined;
  }

  request(interrupt: boolean): void {
    this.requested = true;
    if (interrupt) this.interrupter.abort();
  }

  /**
   * At a tool boundary: when a pause was asked, `onPause` reports it, then this waits for `resume` (or
   * rejects with AbortedError on `stop`), and `onResume` reports the run going on.
   */
  async boundary(signal: AbortSignal, onPause: () => Promise<void>, onResume: () => void): Promise<void> {
    if (!this.requested) return;
    this.requested = false;
    await onPause();
    await new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new AbortedError());
      this.waiter = { resolve, reject };
    });
    this.interrupter = new AbortController();
    onResume();
  }

  /** Lets a paused run go on; false when it is not paused (a resume for it is then ignored). */
  resume(): boolean {
    const waiter = this.waiter;
    if (!waiter) return false;
    this.waiter = undefined;
    waiter.resolve();
    return true;
  }

  /** The run stops (cancel, shutdown): a paused one ends waiting. */
  stop(): void {
    this.waiter?.reject(new AbortedError());
    this.waiter = undefined;
  }
}
