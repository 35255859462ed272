/** A one-shot timer that can be held (while a person answers) and goes on with the time it had left. */
export class PausableTimer {
  private handle: NodeJS.Timeout | undefined;
  private remainingMs: number;
  private startedAt = 0;
  private held = 0;
  private stopped = false;

  constructor(
    durationMs: number,
    private readonly onExpire: () => void,
  ) {
    this.remainingMs = durationMs;
    this.arm();
  }

  private arm(): void {
    this.startedAt = Date.now();
    this.handle = setTimeout(this.onExpire, this.remainingMs);
  }

  /** Holds the timer; pauses nest (each needs its resume). */
  pause(): void {
    if (this.stopped || this.held++ > 0) return;
    clearTimeout(this.handle);
    this.handle = undefined;
    this.remainingMs = Math.max(0, this.remainingMs - (Date.now() - this.startedAt));
  }

  resume(): void {
    if (this.stopped || this.held === 0 || --this.held > 0) return;
    this.arm();
  }

  stop(): void {
    clearTimeout(this.handle);
    this.handle = undefined;
    this.stopped = true;
  }
}
