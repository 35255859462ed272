/**
 * Fire-and-forget work (announcements, disconnect hand-backs) that shutdown must wait for: closing the
 * database under a query in flight can leave the driver waiting forever.
 */
export class BackgroundWork {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly onError: (err: unknown) => void) {}

  run(work: Promise<unknown>): void {
    const tracked = work.catch(this.onError).finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}
