import type { Writable } from 'node:stream';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** A one-line progress bar redrawn in place on a terminal's stderr (at most every 100 ms). */
export class ProgressBar {
  private done = 0;
  private lastDraw = 0;
  private drawn = false;

  constructor(
    private readonly out: Writable,
    private readonly label: string,
    private readonly total: number | null,
    private readonly width = 30,
    private readonly now: () => number = Date.now,
  ) {}

  add(bytes: number): void {
    this.done += bytes;
    const t = this.now();
    if (t - this.lastDraw >= 100) {
      this.lastDraw = t;
      this.draw();
    }
  }

  finish(): void {
    if (this.drawn || this.done > 0) {
      this.draw();
      this.out.write('\n');
    }
  }

  line(): string {
    const size = formatBytes(this.done);
    if (!this.total) return `${this.label} ${size}`;
    const ratio = Math.min(1, this.done / this.total);
    const filled = Math.round(ratio * this.width);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(this.width - filled)}`;
    return `${this.label} [${bar}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${size} / ${formatBytes(this.total)}`;
  }

  private draw(): void {
    this.drawn = true;
    this.out.write(`\r\x1b[2K${this.line()}`);
  }
}

/** A pass-through of a byte stream that reports each chunk (for a progress bar). */
export function counting(
  source: AsyncIterable<Uint8Array>,
  onChunk: (bytes: number) => void,
): AsyncGenerator<Uint8Array> {
  return (async function* () {
    for await (const chunk of source) {
      onChunk(chunk.byteLength);
      yield chunk;
    }
  })();
}
