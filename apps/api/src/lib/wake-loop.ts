import type { Logger } from 'pino';
import { failureLogLevel } from '../domain/errors';

/**
 * Does a round of work, then sleeps for as long as the round answers (until the next due row of its
 * table) or until woken, whichever comes first; a wake during a round makes one more round after it.
 * A failed round is logged and tried again a second later. The timer scheduler and the schedule runner
 * are such loops.
 */
export class WakeLoop {
  private sleeper: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(
    private readonly round: () => Promise<number>,
    private readonly logger: Logger,
    /** what a round does, for the log line of a failure */
    private readonly what: string,
  ) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.sleeper) clearTimeout(this.sleeper);
    this.sleeper = null;
    this.running = this.round()
      .catch((err: unknown) => {
        this.logger[failureLogLevel(err)]({ err }, `${this.what} failed; trying again shortly`);
        return 1000;
      })
      .then((sleepMs) => this.afterRound(sleepMs));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sleeper) clearTimeout(this.sleeper);
    this.sleeper = null;
    await this.running;
  }

  private afterRound(sleepMs: number): void {
    this.running = null;
    if (this.stopped) return;
    if (this.again) {
      this.again = false;
      this.wake();
    } else this.sleeper = setTimeout(() => this.wake(), sleepMs);
  }
}
