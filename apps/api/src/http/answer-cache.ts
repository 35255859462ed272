/** A JSON answer as it goes on the wire: the encoded body and its weak ETag. */
export interface EncodedAnswer {
  json: Buffer;
  etag: string;
}

/**
 * Encoded answers that stay right while a stamp read on every request is unchanged (issue 11): a
 * workflow's log and LLM-call pages are keyed by the page's query and stamped with what changes them
 * (see fast-reads.ts). The stamp comes from the database, so a page is never answered from an entry
 * older than what the request saw, on any replica. Bounded by bytes; the least recently used go first.
 */
export class AnswerCache {
  private readonly entries = new Map<string, { stamp: string; answer: EncodedAnswer }>();
  private bytes = 0;

  constructor(private readonly maxBytes = 32 * 1024 * 1024) {}

  get(key: string, stamp: string): EncodedAnswer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.stamp !== stamp) {
      this.remove(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry); // most recently used last
    return entry.answer;
  }

  /** `stamp` must have been read before the answer's data (the data is then at least as new). */
  set(key: string, stamp: string, answer: EncodedAnswer): void {
    this.remove(key);
    const size = sizeOf(key, answer);
    if (size > this.maxBytes / 16) return;
    this.entries.set(key, { stamp, answer });
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= sizeOf(oldest, entry.answer);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= sizeOf(key, entry.answer);
  }
}

const sizeOf = (key: string, answer: EncodedAnswer) => key.length * 2 + answer.json.length + answer.etag.length * 2;
