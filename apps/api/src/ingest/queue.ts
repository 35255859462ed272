/** A batch in flight: its items, and the batch it follows (null: it started on its own). */
export interface Batch<T> {
  items: T[];
  follows: Batch<T> | null;
}

export interface GroupCommitOptions<T> {
  keyOf(item: T): string;
  concurrency: number;
  maxBatch: number;
  /**
   * Whether the item may be stored by a batch that follows one still in flight with its key, and may
   * be in a batch that is followed (see `run`). Default: never; batches of a key then run one at a time.
   */
  mayFollow?(item: T): boolean;
  /**
   * Stores a batch; must not reject. A batch with `follows` holds only keys that batch holds, and is
   * started while that one is in flight: `run` must store it after that one, on the same ordered
   * channel (e.g. the same database connection), or the items of a key are no longer stored in order.
   */
  run(batch: Batch<T>): Promise<void>;
}

/**
 * Group commit: items that arrive while batches are being stored are collected into the next batch.
 * Up to `concurrency` batches run at once, never two holding the same key, except that a batch of
 * items that `mayFollow` can follow one in flight (pipelining: it is prepared while that one commits),
 * so the items of one key are stored in arrival order, batch after batch.
 */
export class GroupCommitQueue<T> {
  private queue: T[] = [];
  private scheduled = false;
  /** per key, the batches in flight that hold it (at most two: one and its follower) */
  private readonly inFlight = new Map<string, Batch<T>[]>();
  private readonly running = new Set<Promise<void>>();
  /** the batches in flight whose items may all be followed (decided once, when each starts) */
  private readonly followable = new WeakSet<Batch<T>>();

  constructor(private readonly options: GroupCommitOptions<T>) {}

  push(item: T): void {
    this.queue.push(item);
    this.schedule();
  }

  /** Resolves when everything pushed so far is stored. */
  async flush(): Promise<void> {
    while (this.running.size > 0 || this.queue.length > 0) {
      if (this.running.size === 0) this.start();
      await Promise.all([...this.running]);
    }
  }

  /**
   * Starts batches on the next turn of the event loop (setImmediate): the frames already read from the
   * sockets join the batch, and a batch that ended gets its acks and events written before the next one
   * runs (a backlog of full batches would otherwise run back to back in one turn, holding them all).
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start(): void {
    while (this.running.size < this.options.concurrency) {
      const batch = this.next();
      if (!batch) return;
      const keys = new Set(batch.items.map((item) => this.options.keyOf(item)));
      const { mayFollow } = this.options;
      if (mayFollow && batch.items.every((item) => mayFollow(item))) this.followable.add(batch);
      for (const key of keys) this.inFlight.set(key, [...(this.inFlight.get(key) ?? []), batch]);
      const done: Promise<void> = this.options.run(batch).finally(() => {
        for (const key of keys) {
          const left = this.inFlight.get(key)!.filter((b) => b !== batch);
          if (left.length > 0) this.inFlight.set(key, left);
          else this.inFlight.delete(key);
        }
        this.running.delete(done);
        this.schedule();
      });
      this.running.add(done);
    }
  }

  /**
   * The next batch, oldest items first: of keys with nothing in flight; failing that, a follower of
   * the batch in flight that holds the oldest item's key. The items left keep their order.
   */
  private next(): Batch<T> | null {
    const fresh = this.take((key) => !this.inFlight.has(key));
    if (fresh.length > 0) return { items: fresh, follows: null };
    const { mayFollow } = this.options;
    if (!mayFollow) return null;
    // A leader whose follower came out empty once has nothing to take for the rest of the queue either.
    const tried = new Set<Batch<T>>();
    for (const item of this.queue) {
      const ahead = this.inFlight.get(this.options.keyOf(item));
      // One follower at a time, of a batch whose items may all be followed.
      if (ahead?.length !== 1 || !mayFollow(item)) continue;
      const leader = ahead[0]!;
      if (tried.has(leader) || !this.followable.has(leader)) continue;
      tried.add(leader);
      const items = this.take((key, candidate) => {
        const running = this.inFlight.get(key);
        return running?.length === 1 && running[0] === leader && mayFollow(candidate);
      });
      if (items.length > 0) return { items, follows: leader };
    }
    return null;
  }

  /** Moves the queued items `accepts` into a batch, up to maxBatch; a key stops at its first item left. */
  private take(accepts: (key: string, item: T) => boolean): T[] {
    const { keyOf, maxBatch } = this.options;
    const batch: T[] = [];
    const rest: T[] = [];
    const stopped = new Set<string>();
    for (const item of this.queue) {
      const key = keyOf(item);
      if (batch.length < maxBatch && !stopped.has(key) && accepts(key, item)) {
        batch.push(item);
      } else {
        rest.push(item);
        stopped.add(key);
      }
    }
    this.queue = rest;
    return batch;
  }
}
