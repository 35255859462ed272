import { createSseParser, type SseEvent, type SseParser } from '@svc/client';
import { POLL_SAFETY_CAP_MS } from './poll';

export type { SseEvent };

/**
 * An open event stream read with fetch: every event and comment received, waiting for one that matches
 * (an event, never a time), and the end of the stream.
 */
export class EventStream {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  ended = false;
  private waiters: (() => void)[] = [];
  private readonly done: Promise<void>;

  private constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    const parser = createSseParser({
      onEvent: (event) => {
        this.events.push(event);
        this.wake();
      },
      onComment: (comment) => {
        this.comments.push(comment);
        this.wake();
      },
    });
    this.done = this.read(parser);
  }

  /**
   * Opens `path` on `baseUrl` with a credential (a `name=value` cookie or a bearer token) and extra headers
   * (e.g. `Last-Event-ID`). Resolves with the response once its headers arrive; throws when it is not a
   * 200 event stream (the error carries the status and body).
   */
  static async open(
    baseUrl: string,
    path: string,
    credential?: string,
    headers: Record<string, string> = {},
  ): Promise<EventStream> {
    const all = new Headers({ accept: 'text/event-stream', ...headers });
    if (credential) {
      if (credential.includes('=')) all.set('cookie', credential);
      else all.set('authorization', `Bearer ${credential}`);
    }
    const abort = new AbortController();
    const response = await fetch(`${baseUrl}${path}`, { headers: all, signal: abort.signal });
    if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
      const body = await response.text();
      throw Object.assign(new Error(`event stream ${path}: HTTP ${response.status} ${body}`), {
        status: response.status,
        body,
      });
    }
    return new EventStream(response, abort);
  }

  /** The events (not comments) of the given `event:` type. */
  ofType(type: string): SseEvent[] {
    return this.events.filter((e) => e.event === type);
  }

  /** The JSON `data` of the events of a type. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  dataOf(type: string): any[] {
    return this.ofType(type).map((e) => JSON.parse(e.data));
  }

  /** The first event (received or arriving) that matches; rejects if the stream ends without one. */
  next(match: (e: SseEvent) => boolean, what = 'a matching event'): Promise<SseEvent> {
    return this.until(() => this.events.find(match), what);
  }

  /** Resolves when `check` returns something truthy (checked on every event, comment and at the end). */
  until<T>(check: () => T | undefined | false, what = 'the stream to reach a state'): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail(`safety cap reached waiting for ${what}`), POLL_SAFETY_CAP_MS);
      timer.unref();
      const fail = (why: string) => {
        clearTimeout(timer);
        reject(new Error(`${why}; last events: ${JSON.stringify(this.events.slice(-5))}`));
      };
      const attempt = () => {
        const value = check();
        if (value) {
          clearTimeout(timer);
          resolve(value);
          return;
        }
        if (this.ended) return fail(`the stream ended before ${what}`);
        this.waiters.push(attempt);
      };
      attempt();
    });
  }

  /** Resolves when the server ends the stream. */
  async closed(): Promise<void> {
    await this.done;
  }

  /** Stops reading (the server sees the connection close). */
  close(): void {
    this.abort.abort();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  private async read(parser: SseParser): Promise<void> {
    const decoder = new TextDecoder();
    try {
      const reader = this.response.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted by close(), or the connection was cut: either way the stream has ended
    } finally {
      this.ended = true;
      this.wake();
    }
  }
}
