/**
 * Runs `round` one at a time: a call while a round is under way asks for one more round after it
 * (however many calls came), and every caller gets the promise of the run that covers its call.
 * `closed` stops further rounds. The dispatcher's pump and the routing notices use it.
 */
export class CoalescedRuns {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly round: () => Promise<void>,
    private readonly closed: () => boolean,
  ) {}

  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.round();
        } while (this.again && !this.closed());
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Waits for the run under way, if any, whatever its outcome. */
  async settled(): Promise<void> {
    await this.running?.catch(() => undefined);
  }
}
