import { createHash } from 'node:crypto';
import { get, type IncomingMessage } from 'node:http';

/**
 * A download (GET with a cookie) read by the test: paused after its first chunk until `resume`, so it
 * is in flight for as long as the test wants, every byte hashed.
 */
export class SlowDownload {
  readonly hash = createHash('sha256');
  bytes = 0;
  private res: IncomingMessage | null = null;
  /** resolves with the bytes read once the body ended, rejects if it was cut */
  readonly done: Promise<number>;
  /** resolves once the first chunk arrived (the response is in flight, its reader paused) */
  readonly started: Promise<void>;

  constructor(url: string, cookie: string) {
    let started!: () => void;
    this.started = new Promise((resolve) => (started = resolve));
    this.done = new Promise((resolve, reject) => {
      const req = get(url, { headers: { cookie }, agent: false }, (res) => {
        this.res = res;
        if (res.statusCode !== 200) reject(new Error(`download: HTTP ${res.statusCode}`));
        res.on('data', (chunk: Buffer) => {
          this.hash.update(chunk);
          if (this.bytes === 0) {
            res.pause();
            started();
          }
          this.bytes += chunk.length;
        });
        res.once('end', () => (res.complete ? resolve(this.bytes) : reject(new Error('download cut'))));
        res.once('aborted', () => reject(new Error(`download cut after ${this.bytes} bytes`)));
        res.once('error', reject);
      });
      req.once('error', reject);
    });
    this.done.catch(() => undefined);
  }

  resume(): void {
    this.res?.resume();
  }
}
