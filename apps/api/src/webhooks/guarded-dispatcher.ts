import { EventEmitter } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import { guardedLookup, literalAddressRefusal, TargetRefused } from './targets';

/**
 * The parts of undici's `Dispatcher` that `fetch` uses (Node's own `fetch` takes one as its `dispatcher`
 * option; @gitbeaker/rest passes its `agent` option there). Declared here: undici is not a dependency.
 */
interface DispatchOptions {
  origin?: string | URL;
  path: string;
  method: string;
  headers?: unknown;
  body?: unknown;
}
interface DispatchHandler {
  onConnect?(abort: (error?: Error) => void): void;
  onHeaders?(statusCode: number, headers: Buffer[], resume: () => void, statusText: string): boolean;
  onData?(chunk: Buffer): boolean;
  onComplete?(trailers: string[] | null): void;
  onError?(error: Error): void;
}

export interface GuardedDispatcherOptions {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: internal addresses allowed */
  allowPrivate: boolean;
  /** The one host requests may go to (a forge's API host): a redirect elsewhere is refused. */
  host: string;
  /** The most an exchange may be silent before it is given up. */
  idleTimeoutMs?: number;
}

const refused = (message: string) => Object.assign(new TargetRefused(message), { code: 'ETARGETREFUSED' });

/**
 * A `fetch` dispatcher for the forge API clients (octokit, gitea-js, gitbeaker) with the connect-time
 * rule of outbound targets (postToTarget's `guardedLookup`): every address a host name resolves to is
 * checked when the connection is made, so a name that resolved outside when the repository was saved and
 * inside now (DNS rebinding, a changed record) is refused; an internal IP literal is refused before any
 * connection; both unless WEBHOOK_ALLOW_PRIVATE_TARGETS. Requests go to one host only: fetch follows a
 * redirect through its dispatcher again, and one to another host is refused rather than followed.
 */
export class GuardedDispatcher extends EventEmitter {
  private readonly open = new Set<http.ClientRequest>();

  constructor(private readonly options: GuardedDispatcherOptions) {
    super();
  }

  dispatch(options: DispatchOptions, handler: DispatchHandler): boolean {
    const refuse = (error: Error) => {
      queueMicrotask(() => handler.onError?.(error));
      return true;
    };
    let url: URL;
    try {
      url = new URL(options.path, options.origin);
    } catch {
      return refuse(new Error('the request URL does not parse'));
    }
    const problem =
      url.hostname.toLowerCase() !== this.options.host.toLowerCase()
        ? refused(`refused: ${url.hostname} is not the forge's API host (${this.options.host})`)
        : literalAddressRefusal(url, this.options.allowPrivate);
    if (problem) return refuse(problem);
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: options.method,
      headers: headerObject(options.headers),
      lookup: guardedLookup(this.options.allowPrivate) as never,
      agent: false,
      timeout: this.options.idleTimeoutMs ?? 30_000,
    });
    // ended: completed or failed; the handler hears of it once
    let ended = false;
    const fail = (error: Error) => {
      if (ended) return;
      ended = true;
      req.destroy();
      handler.onError?.(error);
    };
    this.open.add(req);
    req.on('close', () => this.open.delete(req));
    handler.onConnect?.((error) => fail(error ?? new Error('aborted')));
    req.on('timeout', () => req.destroy(new Error('the forge did not answer in time')));
    req.on('error', fail);
    req.on('response', (res) => {
      const raw = res.rawHeaders.map((value) => Buffer.from(value, 'latin1'));
      const go = handler.onHeaders?.(res.statusCode ?? 0, raw, () => res.resume(), res.statusMessage ?? '');
      if (go === false) res.pause();
      res.on('data', (chunk: Buffer) => {
        if (handler.onData?.(chunk) === false) res.pause();
      });
      res.on('end', () => {
        if (ended) return;
        ended = true;
        handler.onComplete?.([]);
      });
      res.on('error', fail);
    });
    void writeBody(req, options.body).catch(fail);
    return true;
  }

  async close(): Promise<void> {
    await Promise.all([...this.open].map((req) => new Promise((resolve) => req.once('close', resolve))));
  }

  async destroy(): Promise<void> {
    for (const req of this.open) req.destroy();
  }
}

/** fetch's headers as a plain object: a flat [name, value, …] list, [name, value] pairs, or an object. */
function headerObject(headers: unknown): http.OutgoingHttpHeaders {
  const out: Record<string, string | string[]> = {};
  const add = (name: string, value: unknown) => {
    if (value === undefined || value === null) return;
    const key = name.toLowerCase();
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    const had = out[key];
    out[key] = had === undefined ? (values.length === 1 ? values[0]! : values) : [had, ...values].flat();
  };
  if (headers === null || headers === undefined) return out;
  if (Array.isArray(headers) && headers.every((item) => typeof item === 'string' || Buffer.isBuffer(item))) {
    for (let i = 0; i + 1 < headers.length; i += 2) add(String(headers[i]), String(headers[i + 1]));
    return out;
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const pair of headers as Iterable<[string, unknown]>) add(pair[0], pair[1]);
    return out;
  }
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) add(name, value);
  return out;
}

/** A request body as fetch hands it over: none, text or bytes, or an async iterable of chunks. */
async function writeBody(req: http.ClientRequest, body: unknown): Promise<void> {
  if (body === null || body === undefined) return void req.end();
  if (typeof body === 'string' || body instanceof Uint8Array) return void req.end(body);
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
      if (!req.write(chunk)) await new Promise((resolve) => req.once('drain', resolve));
    }
    return void req.end();
  }
  throw new Error('a request body of an unknown kind');
}

/**
 * Whether an error (or one it was caused by) is a refused outbound target; its message when so. Known
 * by its message too: fetch may pass on a copy of the error (`new Error(String(error))`) in its place.
 */
export function targetRefusal(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth++) {
    const message = String((current as { message?: unknown }).message ?? '');
    if (current instanceof TargetRefused || (current as { code?: unknown }).code === 'ETARGETREFUSED') return message;
    const copied = /^(?:Error: )?(refused: .*)$/s.exec(message);
    if (copied) return copied[1]!;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/**
 * A fetch through a guarded dispatcher (for clients that take a fetch function). A refusal rejects as
 * the refusal itself, not fetch's "fetch failed", so a client library's error keeps saying why.
 */
export function fetchThrough(dispatcher: GuardedDispatcher): typeof fetch {
  return (input, init) =>
    fetch(input, { ...init, dispatcher } as unknown as RequestInit).catch((error: unknown) => {
      const refusal = targetRefusal(error);
      throw refusal ? refused(refusal) : error;
    });
}
