/**
 * Answers asked by many sockets at once, asked once: concurrent callers with the same key share the
 * one promise in flight, and its answer holds for `freshMs` (a failure is not remembered). Ten
 * thousand tabs of one session reconnecting after a deploy cost one database read, not ten thousand.
 */
export class SharedChecks<T> {
  private readonly answers = new Map<string, { at: number; answer: Promise<T> }>();

  constructor(
    private readonly freshMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(key: string, ask: () => Promise<T>): Promise<T> {
    const at = this.now();
    const known = this.answers.get(key);
    if (known && at - known.at < this.freshMs) return known.answer;
    const answer = ask();
    this.answers.set(key, { at, answer });
    answer.catch(() => {
      if (this.answers.get(key)?.answer === answer) this.answers.delete(key);
    });
    return answer;
  }

  /** Forgets every answer (a revocation happened, or a sweep wants fresh ones). */
  clear(): void {
    this.answers.clear();
  }
}

/**
 * Reads that start after they were asked for: callers asking before a read has started share it (one
 * read for a storm of subscribes to one workflow), and a caller asking once it has started gets the
 * next one, so every answer was read after its caller asked.
 */
export class JoinedReads<T> {
  private readonly waiting = new Map<string, Promise<T>>();

  get(key: string, read: () => Promise<T>): Promise<T> {
    let answer = this.waiting.get(key);
    if (answer === undefined) {
      answer = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.waiting.delete(key);
        return read();
      });
      this.waiting.set(key, answer);
    }
    return answer;
  }
}
