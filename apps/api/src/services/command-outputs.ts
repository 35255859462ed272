import { Transform, type TransformCallback } from 'node:stream';
import { ByteTail, omittedOutputMarker, utf8PrefixEnd, utf8SuffixStart } from '@svc/text';
import type { StorageArea } from './storage';

/** Where one command's whole output lives in its project's command-output area (decision 0073). */
export const commandOutputPath = (workflowId: string, name: string) => `${workflowId}/${name}.log`;

/**
 * Passes a stream through while it fits `maxBytes`; past it keeps the first and the last half, cut on
 * character boundaries, with the marker between them. Holds at most half the bound in memory.
 */
export class HeadTailBound extends Transform {
  private readonly headLimit: number;
  private headBytes = 0;
  private readonly tail: ByteTail;
  received = 0;

  constructor(maxBytes: number) {
    super();
    this.headLimit = Math.ceil(maxBytes / 2);
    this.tail = new ByteTail(Math.floor(maxBytes / 2));
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
    if (rest.length > 0) this.tail.push(rest);
    done();
  }

  override _flush(done: TransformCallback): void {
    const tail = this.tail.bytes();
    if (this.tail.dropped === 0) {
      // Nothing left out: what passed plus the tail is the whole stream.
      this.push(tail);
      return done();
    }
    const start = utf8SuffixStart(tail);
    this.push(omittedOutputMarker(this.tail.dropped + start));
    this.push(tail.subarray(start));
    done();
  }
}

/** A stored output object, or null when it is not there (never uploaded, or removed). */
export async function outputObject(area: StorageArea, workflowId: string, name: string) {
  const target = await area.resolve(commandOutputPath(workflowId, name)).catch(() => null);
  return target?.stat?.type === 'file' ? target : null;
}
