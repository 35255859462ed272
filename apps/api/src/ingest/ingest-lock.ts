/**
 * Storing worker updates and taking workflows back from workers exclude each other: batches of updates
 * share the lock (several may commit at once, for different workflows), a hand-back holds it alone. So
 * an update is either stored before the hand-back (and counted in the next worker's `last_seq`) or
 * refused after it, never stored behind the new worker's back. First come, first served: a waiting
 * hand-back is not overtaken by later batches.
 */
export class IngestLock {
  private readers = 0;
  private writer = false;
  private readonly waiting: { exclusive: boolean; enter: () => void }[] = [];

  shared<T>(section: () => Promise<T>): Promise<T> {
    return this.run(false, section);
  }

  exclusive<T>(section: () => Promise<T>): Promise<T> {
    return this.run(true, section);
  }

  private async run<T>(exclusive: boolean, section: () => Promise<T>): Promise<T> {
    await new Promise<void>((enter) => {
      this.waiting.push({ exclusive, enter });
      this.admit();
    });
    try {
      return await section();
    } finally {
      if (exclusive) this.writer = false;
      else this.readers--;
      this.admit();
    }
  }

  private admit(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (this.writer || (next.exclusive && this.readers > 0)) return;
      this.waiting.shift();
      if (next.exclusive) this.writer = true;
      else this.readers++;
      next.enter();
    }
  }
}
