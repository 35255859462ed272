import { Transform, type TransformCallback } from 'node:stream';
import { omittedOutputMarker, utf8PrefixEnd, utf8SuffixStart } from '@svc/text';
import type { StorageArea } from './storage';

/** Where one command's whole output lives in its project's command-output area (decision 0073). */
export const commandOutputPath = (workflowId: string, name: string) => `${workflowId}/${name}.log`;

/**
 * Passes a stream through while it fits `maxBytes`; past it keeps the first and the last half, cut on
 * character boundaries, with the marker between them. Holds at most half the bound in memory.
 */
export class HeadTailBound extends Transform {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  /** bytes dropped from the tail's front so far */
  private dropped = 0;
  received = 0;

  constructor(maxBytes: number) {
    super();
    this.headLimit = Math.ceil(maxBytes / 2);
    this.tailLimit = Math.floor(maxBytes / 2);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.received += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const room = this.headLimit - this.headBytes;
      // The head ends on a character boundary: a character the limit splits goes to the tail whole.
      const take = rest.length <= room ? rest.length : utf8PrefixEnd(rest, room);
      this.push(rest.subarray(0, take));
      this.headBytes = take === rest.length ? this.headBytes + take : this.headLimit;
      rest = rest.subarray(take);
    }
    if (rest.length > 0) this.keepTail(rest);
    done();
  }

  override _flush(done: TransformCallback): void {
    const tail = Buffer.concat(this.tail);
    if (this.dropped === 0) {
      // Nothing left out: what passed plus the tail is the whole stream.
      this.push(tail);
      return done();
    }
    const start = utf8SuffixStart(tail);
    this.push(omittedOutputMarker(this.dropped + start));
    this.push(tail.subarray(start));
    done();
  }

  private keepTail(bytes: Buffer): void {
    this.tail.push(bytes);
    this.tailBytes += bytes.length;
    while (this.tailBytes > this.tailLimit) {
      const first = this.tail[0] as Buffer;
      const excess = this.tailBytes - this.tailLimit;
      const cut = Math.min(first.length, excess);
      if (cut === first.length) this.tail.shift();
      else this.tail[0] = first.subarray(cut);
      this.tailBytes -= cut;
      this.dropped += cut;
    }
  }
}

/** A stored output object, or null when it is not there (never uploaded, or removed). */
export async function outputObject(area: StorageArea, workflowId: string, name: string) {
  const target = await area.resolve(commandOutputPath(workflowId, name)).catch(() => null);
  return target?.stat?.type === 'file' ? target : null;
}
