import { ByteTail, decodeUtf8, omittedOutputMarker, utf8PrefixEnd, utf8SuffixStart } from '@svc/text';

/**
 * Keeps the first and the last `maxBytes / 2` bytes of a stream. The head shows how a command
 * started, the tail shows how it ended (where errors usually are); the middle is counted, not kept.
 */
export class HeadTailBuffer {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: ByteTail;
  private total = 0;
  private readonly headLimit: number;

  constructor(maxBytes: number) {
    this.headLimit = Math.ceil(maxBytes / 2);
    this.tail = new ByteTail(Math.floor(maxBytes / 2));
  }

  get totalBytes(): number {
    return this.total;
  }

  get truncated(): boolean {
    return this.total > this.headBytes + this.tail.length;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = rest.subarray(0, this.headLimit - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      rest = rest.subarray(take.length);
    }
    if (rest.length > 0) this.tail.push(rest);
  }

  /**
   * The kept bytes as they were written; a cut in the middle is marked with the number of bytes left out.
   * The head ends and the tail starts on character boundaries: a character the limits split is left out whole.
   */
  bytes(): Buffer {
    const headBytes = Buffer.concat(this.head);
    const tailBytes = this.tail.bytes();
    const omitted = this.tail.dropped;
    if (omitted === 0) return Buffer.concat([headBytes, tailBytes]);
    const headEnd = utf8PrefixEnd(headBytes);
    const tailStart = utf8SuffixStart(tailBytes);
    const left = omitted + (headBytes.length - headEnd) + tailStart;
    const marker = Buffer.from(omittedOutputMarker(left));
    return Buffer.concat([headBytes.subarray(0, headEnd), marker, tailBytes.subarray(tailStart)]);
  }

  /** The kept bytes decoded (see `bytes`). */
  text(): string {
    // Decoded in one piece: a character split across head and tail survives when nothing is left out.
    return decodeUtf8(this.bytes());
  }
}
