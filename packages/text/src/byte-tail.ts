/**
 * The last `limit` bytes of a stream, held as the chunks that brought them (no copy until read).
 * What falls out of the front is counted in `dropped`. The worker's head-and-tail output buffer and
 * the server's bounded command-output upload keep their tails with it.
 */
export class ByteTail {
  private chunks: Buffer[] = [];
  private held = 0;
  /** bytes pushed out of the front so far */
  dropped = 0;

  constructor(private readonly limit: number) {}

  get length(): number {
    return this.held;
  }

  push(bytes: Buffer): void {
    if (this.limit === 0) {
      this.dropped += bytes.length;
      return;
    }
    this.chunks.push(bytes);
    this.held += bytes.length;
    while (this.held > this.limit) {
      const first = this.chunks[0] as Buffer;
      const cut = Math.min(first.length, this.held - this.limit);
      if (cut === first.length) this.chunks.shift();
      else this.chunks[0] = first.subarray(cut);
      this.held -= cut;
      this.dropped += cut;
    }
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
