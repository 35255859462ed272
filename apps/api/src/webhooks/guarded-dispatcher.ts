import { Agent, type Dispatcher } from 'undici';
import { guardedLookup, literalAddressRefusal, TargetRefused } from './targets';

export interface GuardedDispatcherOptions {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: internal addresses allowed */
  allowPrivate: boolean;
  /** The one host requests may go to (a forge's API host): a redirect elsewhere is refused. */
  host: string;
  /** The most an exchange may be silent before it is given up. */
  idleTimeoutMs?: number;
}

/**
 * undici's connection pool for the forge API clients (octokit, gitea-js, gitbeaker), with the connect-time
 * rule of outbound targets (postToTarget's `guardedLookup`): every address a host name resolves to is
 * checked when the connection is made, so a name that resolved outside when the repository was saved and
 * inside now (DNS rebinding, a changed record) is refused; an internal IP literal is refused before any
 * connection; both unless WEBHOOK_ALLOW_PRIVATE_TARGETS. Requests go to one host only: fetch follows a
 * redirect through its dispatcher again, and one to another host is refused rather than followed.
 */
export class GuardedDispatcher extends Agent {
  constructor(private readonly options: GuardedDispatcherOptions) {
    const idle = options.idleTimeoutMs ?? 30_000;
    super({
      connect: { lookup: guardedLookup(options.allowPrivate) as never, timeout: idle },
      headersTimeout: idle,
      bodyTimeout: idle,
    });
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandlers): boolean {
    const problem = this.problemWith(options);
    if (!problem) return super.dispatch(options, handler);
    queueMicrotask(() => handler.onError?.(problem));
    return true;
  }

  private problemWith(options: Dispatcher.DispatchOptions): Error | null {
    let url: URL;
    try {
      url = new URL(options.path, options.origin);
    } catch {
      return new Error('the request URL does not parse');
    }
    if (url.hostname.toLowerCase() !== this.options.host.toLowerCase())
      return new TargetRefused(`refused: ${url.hostname} is not the forge's API host (${this.options.host})`);
    return literalAddressRefusal(url, this.options.allowPrivate);
  }
}

/**
 * Whether an error (or one it was caused by) is a refused outbound target; its message when so. Known
 * by its message too: fetch may pass on a copy of the error (`new Error(String(error))`) in its place.
 */
export function targetRefusal(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth++) {
    const message = String((current as { message?: unknown }).message ?? '');
    // an own data property only: client libraries' errors may warn when a `code` getter is read
    const code: unknown = Object.getOwnPropertyDescriptor(current, 'code')?.value;
    if (current instanceof TargetRefused || code === 'ETARGETREFUSED') return message;
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
      throw refusal ? new TargetRefused(refusal) : error;
    });
}
