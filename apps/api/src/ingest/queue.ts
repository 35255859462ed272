/**
 * Group commit: items that arrive while batches are being stored are collected into the next batch.
 * Up to `concurrency` batches run at once, but never two holding the same key, so the items of one key
 * are stored in arrival order, batch after batch.
 */
export class GroupCommitQueue<T> {
  private queue: T[] = [];
  private scheduled = false;
  private readonly busy = new Set<string>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly options: {
      keyOf(item: T): string;
      concurrency: number;
      maxBatch: number;
      /** stores a batch; must not reject */
      run(batch: T[]): Promise<void>;
    },
  ) {}

  push(item: T): void {
    this.queue.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate lets the frames already read from the sockets join this batch.
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  /** Resolves when everything pushed so far is stored. */
  async flush(): Promise<void> {
    while (this.running.size > 0 || this.queue.length > 0) {
      if (this.running.size === 0) this.start();
      await Promise.all([...this.running]);
    }
  }

  private start(): void {
    while (this.running.size < this.options.concurrency) {
      const batch = this.next();
      if (batch.length === 0) return;
      const keys = new Set(batch.map((item) => this.options.keyOf(item)));
      for (const key of keys) this.busy.add(key);
      const done: Promise<void> = this.options.run(batch).finally(() => {
        for (const key of keys) this.busy.delete(key);
        this.running.delete(done);
        this.start();
      });
      this.running.add(done);
    }
  }

  /** The queued items whose key has no batch in flight, oldest first; the rest keep their order. */
  private next(): T[] {
    const batch: T[] = [];
    const rest: T[] = [];
    for (const item of this.queue) {
      if (batch.length < this.options.maxBatch && !this.busy.has(this.options.keyOf(item))) batch.push(item);
      else rest.push(item);
    }
    this.queue = rest;
    return batch;
  }
}
