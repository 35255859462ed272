/**
 * The last `limit` bytes of a stream, held as the chunks that brought them (no copy until read).
 * What falls out of the front is counted in `dropped`. The worker's head-and-tail output buffer and
 * the server's bounded command-output upload keep their tails with it.
 */
export class ByteTail {
  private chunks: Uint8Array[] = [];
  private held = 0;
  /** bytes pushed out of the front so far */
  dropped = 0;

  constructor(private readonly limit: number) {}

  get length(): number {
    return this.held;
  }

  push(bytes: Uint8Array): void {
    if (this.limit === 0) {
      this.dropped += bytes.length;
      return;
    }
    this.chunks.push(bytes);
    this.held += bytes.length;
    while (this.held > this.limit) {
      const first = this.chunks[0] as Uint8Array;
      const cut = Math.min(first.length, this.held - this.limit);
      if (cut === first.length) this.chunks.shift();
      else this.chunks[0] = first.subarray(cut);
      this.held -= cut;
      this.dropped += cut;
    }
  }

  /** The held bytes in one piece (a copy). */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.held);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }
}
