import { on, type ClusterBus } from '../cluster/bus';

/**
 * Runs `pass` again and again: at once after `kick()`, else when `nextDue` names the next due moment, and
 * otherwise after `idleMs` (a safety net), or after `pollMs` once `nudge()` said another replica may have
 * written work. One pass at a time; `stop()` waits for the pass in flight. `nextDue` is asked only when the
 * poller is about to sleep: after a pass kicked meanwhile, the next pass runs at once.
 */
export class Poller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  /** another replica may have written work since the last pass began */
  private nudged = false;
  /** when the sleeping timer fires (epoch ms) */
  private wakeAt = 0;

  constructor(
    private readonly pass: () => Promise<void>,
    /** when the next work is due (null: nothing known; poll) */
    private readonly nextDue: () => Promise<Date | null>,
    private readonly pollMs: number,
    private readonly onError: (err: unknown) => void,
    /** the longest sleep when nobody nudged: work written here kicks, and known due times wake */
    private readonly idleMs = pollMs,
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

  /**
   * Work may have been written by another replica (its events crossed the bus): the next pass comes
   * within `pollMs`, as that replica may die before handling it.
   */
  nudge(): void {
    if (this.stopped) return;
    this.nudged = true;
    if (this.timer && this.wakeAt - Date.now() > this.pollMs) this.sleep(this.pollMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private async run(): Promise<void> {
    let next: Date | null = null;
    this.nudged = false;
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
    this.sleep(pollWait(next, Date.now(), this.nudged ? this.pollMs : this.idleMs));
  }

  private sleep(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.wakeAt = Date.now() + ms;
    this.timer = setTimeout(() => this.kick(), ms);
    this.timer.unref();
  }
}

/** Other replicas' committed events (and a bus gap, which may have hidden some) nudge the poller. */
export function nudgeOnClusterEvents(bus: ClusterBus, poller: Poller): () => void {
  const stops = [on(bus, 'events', () => poller.nudge()), bus.onResync(() => poller.nudge())];
  return () => stops.forEach((stop) => stop());
}

/** How long to sleep: until the next due moment, at most `capMs` (work nobody announced may appear). */
export const pollWait = (next: Date | null, now: number, capMs: number): number =>
  next ? Math.max(0, Math.min(capMs, next.getTime() - now)) : capMs;

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
