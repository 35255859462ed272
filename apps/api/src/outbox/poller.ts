/**
 * Runs `pass` again and again: at once after `kick()`, else after `pollMs` (or earlier when `nextDue`
 * names the next due moment). One pass at a time; `stop()` waits for the pass in flight. `nextDue` is
 * asked only when the poller is about to sleep: after a pass kicked meanwhile, the next pass runs at once.
 */
export class Poller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(
    private readonly pass: () => Promise<void>,
    /** when the next work is due (null: nothing known; poll) */
    private readonly nextDue: () => Promise<Date | null>,
    private readonly pollMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.kick();
  }

  /** Work may be waiting: run a pass now (or right after the one in flight). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private async run(): Promise<void> {
    let next: Date | null = null;
    try {
      await this.pass();
      if (!this.again && !this.stopped) next = await this.nextDue();
    } catch (err) {
      this.onError(err);
    }
    this.running = null;
    if (this.stopped) return;
    if (this.again) {
      this.again = false;
      this.kick();
      return;
    }
    const wait = next ? Math.max(0, Math.min(this.pollMs, next.getTime() - Date.now())) : this.pollMs;
    this.timer = setTimeout(() => this.kick(), wait);
    this.timer.unref();
  }
}

/** When a pending row is next due: its due time, or the end of the lease on it when that is later. */
export const dueMoment = (due: Date, lockedUntil: Date | null): Date =>
  lockedUntil && lockedUntil > due ? lockedUntil : due;

/** Exponential backoff: `base` × 2^(attempt-1), at most `max` (attempt counts from 1). */
export const backoffMs = (attempt: number, base: number, max: number) =>
  Math.min(max, base * 2 ** Math.min(Math.max(0, attempt - 1), 40));

/**
 * Renews a lease while its work runs: `renew` every third of the lease, so a slow handler or a slow
 * receiver keeps its claim, and a killed replica's claim runs out one lease after its last renewal.
 */
export function keepLeased(leaseSeconds: number, renew: () => Promise<unknown>, onError: (err: unknown) => void) {
  const timer = setInterval(() => void renew().catch(onError), Math.max(50, (leaseSeconds * 1000) / 3));
  timer.unref();
  return () => clearInterval(timer);
}
