import type { Request, Response } from 'express';
import type { WsErrorInfo } from '@svc/protocol';
import { envelope, type EventSubscriber, type StoredEvent } from '../events';
import { sseStreamsChanged } from '../metrics/registry';

export interface SseOptions {
  /** how often a comment line is sent so proxies keep an idle stream open (and the credential is re-checked) */
  heartbeatMs: number;
  /** bytes held for a client that reads too slowly before it is dropped */
  maxBufferedBytes: number;
  /** how long a replay waits for a client to read its backlog before dropping it */
  drainTimeoutMs: number;
}

export const SSE_DEFAULTS: Omit<SseOptions, 'heartbeatMs'> = {
  maxBufferedBytes: 4 * 1024 * 1024,
  drainTimeoutMs: 30_000,
};

/** How long an EventSource waits before it reconnects (sent once, as `retry:`). */
export const SSE_RETRY_MS = 3000;

/**
 * One `text/event-stream` response: events as `id: <seq>`, `event: <type>`, `data: <envelope JSON>`,
 * control messages (`subscribed`, `error`) as named events without an id, and heartbeat comments. It
 * never buffers without bound: a client whose backlog passes the limit is dropped (it reconnects with
 * `Last-Event-ID` and misses nothing).
 */
export class SseStream implements EventSubscriber {
  private closed = false;
  private readonly closeListeners: (() => void)[] = [];
  private heartbeat: NodeJS.Timeout | null = null;
  /** counted in the open-sockets metric (uncounted once when it finishes) */
  private counted = false;

  constructor(
    private readonly res: Response,
    private readonly options: SseOptions,
    /** whether events carry `id:` (only a workflow stream's seqs are replayable) */
    private readonly withIds: boolean,
  ) {}

  get open(): boolean {
    return !this.closed && !this.res.destroyed && this.res.writable;
  }

  /** Sends the headers (the client sees 200 at once), then keeps the stream alive with `tick` on each heartbeat. */
  start(req: Request, tick: () => Promise<void>): void {
    const res = this.res;
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // nginx and similar proxies: do not buffer the stream
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    req.socket.setKeepAlive(true);
    this.write(`retry: ${SSE_RETRY_MS}\n\n`);
    sseStreamsChanged(1);
    this.counted = true;
    const onGone = () => this.finish();
    res.on('close', onGone);
    res.on('error', onGone);
    // A client that left while it was authorized sends no 'close' any more: end here, freeing its slot.
    if (res.closed || res.destroyed || req.socket.destroyed) return this.finish();
    this.heartbeat = setInterval(() => {
      void tick().then(
        () => this.write(': keep-alive\n\n'),
        () => undefined,
      );
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Runs once when the stream ends, however it ends (client gone, dropped, server closing). */
  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  sendEvent(event: StoredEvent): boolean {
    const id = this.withIds && event.seq > 0 ? `id: ${event.seq}\n` : '';
    return this.write(`${id}event: ${event.type}\ndata: ${envelope(event)}\n\n`);
  }

  /** A control message (no id, so it does not move the client's Last-Event-ID). */
  sendControl(type: string, data: object): boolean {
    return this.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  }

  async roomToSend(): Promise<boolean> {
    const res = this.res;
    if (!this.open) return false;
    if (res.writableLength <= this.options.maxBufferedBytes / 4) return true;
    const drained = await new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        res.off('drain', onDrain);
        res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      const timer = setTimeout(() => done(false), this.options.drainTimeoutMs);
      res.once('drain', onDrain);
      res.once('close', onClose);
    });
    if (!drained && this.open) this.drop(0, 'client reads too slowly; reconnect with Last-Event-ID');
    return this.open;
  }

  /** Ends the stream with an `error` event naming why (the contract's error codes). */
  fail(error: WsErrorInfo): void {
    if (!this.open) return;
    this.sendControl('error', { error });
    this.end();
  }

  /**
   * The server is shutting down (decision 0061): an endless stream cannot finish within the grace
   * period, so it ends cleanly now with `unavailable`, which every client answers by reconnecting
   * (with Last-Event-ID) through the load balancer to a replica that stays.
   */
  goAway(): void {
    this.fail({ code: 'unavailable', message: 'the server is shutting down; reconnect to go on' });
  }

  drop(_code: number, reason: string): void {
    this.fail({ code: 'unavailable', message: reason });
  }

  /** Ends the response cleanly. */
  end(): void {
    if (this.open) this.res.end();
    this.finish();
  }

  private write(text: string): boolean {
    if (!this.open) return false;
    if (this.res.writableLength + text.length > this.options.maxBufferedBytes) {
      // Past the limit: stop here; the client reconnects with Last-Event-ID and replays what it missed.
      this.res.destroy();
      this.finish();
      return false;
    }
    this.res.write(text);
    return true;
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.counted) sseStreamsChanged(-1);
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
