import type { MessageRate } from '../config';

/**
 * Token bucket of one socket: starts full (`burst` messages), refills at `perSecond`. `take` always
 * counts the message and says whether it was within the limit; a bucket in debt tells how long until
 * it is positive again. The clock is injectable so tests need no wall-clock time.
 */
export class MessageBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly rate: MessageRate,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = rate.burst;
    this.last = now();
  }

  /** Counts one message; false when it was over the limit. */
  take(): boolean {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0;
  }

  /** Milliseconds until the messages taken over the limit are paid off by the refill (0 when none are). */
  debtMs(): number {
    this.refill();
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.rate.perSecond) * 1000);
  }

  private refill(): void {
    const at = this.now();
    this.tokens = Math.min(this.rate.burst, this.tokens + ((at - this.last) / 1000) * this.rate.perSecond);
    this.last = at;
  }
}
