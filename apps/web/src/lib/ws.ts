import { backoffDelay } from '@svc/client';
import {
  BrowserCommandOutputMessageSchema,
  BrowserServerMessageSchema,
  parseJsonMessage,
  parseWith,
  WS_CLOSE_GOING_AWAY,
  type BrowserClientMessage,
  type WsErrorInfo,
} from '@svc/protocol';
import {
  SubscriptionBook,
  type ProjectListener,
  type WorkerListener,
  type WorkflowListener,
} from './subscription-book';
import { inBackground } from './background';

export type { ProjectListener, WorkerListener, WorkflowListener } from './subscription-book';

/** The part of the browser's WebSocket this client uses (the `ws` package's socket fits it too). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/**
 * `refused`: the socket keeps closing before it opens while the server answers REST (it refused the
 * upgrade, e.g. 403 for an origin it does not accept: a browser sees only the close, not the status).
 * `reconnecting`: the socket dropped, or the server does not answer at all.
 */
export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'refused' | 'closed';

export interface LiveSocketOptions {
  url: string;
  createSocket?: (url: string) => SocketLike;
  /** wait before reconnect attempt `attempt` (0-based) */
  retryDelayMs?: (attempt: number) => number;
  /** a message the server refused (e.g. a subscription to a workflow the user may not see) */
  onServerError?: (error: WsErrorInfo) => void;
  /** whether the server answers plain HTTP now (tells a refused upgrade from a server that is down) */
  probe?: () => Promise<boolean>;
}

/** This many closes in a row before any open, with the server answering HTTP, mean "refused". */
export const REFUSED_AFTER_FAILURES = 2;

const OPEN = 1;
export const RETRY_BASE_MS = 500;
export const RETRY_MAX_MS = 10_000;
/** The most a reconnect after the server's "going away" (1001) waits: spread over the tabs, not backed off. */
export const GOING_AWAY_JITTER_MS = 250;

/** Exponential back-off with equal jitter (half to full delay), capped, so many tabs do not reconnect in step. */
export function retryDelay(attempt: number, random: () => number = Math.random): number {
  return backoffDelay(attempt, { baseMs: RETRY_BASE_MS, maxMs: RETRY_MAX_MS, jitter: 0.5, random });
}

/** `ws(s)://<host>/svc/ws` for the page's own origin. */
export function browserSocketUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/svc/ws`;
}

/**
 * One reconnecting WebSocket for the whole app (CONTRACT section 4). After a drop it reconnects,
 * subscribes again to every project and workflow still listened to, and asks for each workflow's
 * events after the last seq it saw, so a reconnecting page misses nothing and sees nothing twice.
 */
export class LiveSocket {
  private readonly book = new SubscriptionBook();
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();
  private readonly createSocket: (url: string) => SocketLike;
  private readonly retryDelayMs: (attempt: number) => number;
  private socket: SocketLike | null = null;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private current: ConnectionState = 'connecting';
  /** closes since the last open that came before the socket opened */
  private failuresBeforeOpen = 0;
  /** whether anything went wrong since the socket was last open (the page shows a banner) */
  private troubled = false;

  constructor(private readonly options: LiveSocketOptions) {
    this.createSocket = options.createSocket ?? ((url) => new WebSocket(url) as unknown as SocketLike);
    this.retryDelayMs = options.retryDelayMs ?? ((attempt) => retryDelay(attempt));
    this.connect();
  }

  get state(): ConnectionState {
    return this.current;
  }

  onStateChange(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** Follows one workflow's events; the returned function stops following. */
  subscribeWorkflow(workflowId: string, listener: WorkflowListener): () => void {
    this.send(this.book.addWorkflow(workflowId, listener));
    return () => this.send(this.book.removeWorkflow(workflowId, listener));
  }

  /** Follows a project's changes (workflow list, statuses, titles, deletion). */
  subscribeProject(projectId: string, listener: ProjectListener): () => void {
    this.send(this.book.addProject(projectId, listener));
    return () => this.send(this.book.removeProject(projectId, listener));
  }

  /** Follows the workers' online status (`worker_status` events, sent to every signed-in socket). */
  onWorkerStatus(listener: WorkerListener): () => void {
    return this.book.addWorkerListener(listener);
  }

  /** Last seq seen for a workflow (null before the server confirmed the subscription). */
  lastSeq(workflowId: string): number | null {
    return this.book.lastSeq(workflowId);
  }

  /** Whether the connection failed since it was last open (a retry may be under way). */
  get interrupted(): boolean {
    return this.troubled && this.current !== 'open' && this.current !== 'closed';
  }

  /** Tries again at once instead of waiting for the back-off (the banner's "Retry now"). */
  retryNow(): void {
    if (this.current === 'closed' || this.current === 'open' || this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.attempt = 0;
    this.setState('connecting');
    this.connect();
  }

  /** Closes for good (sign-out, page teardown); no reconnect follows. */
  close(): void {
    this.setState('closed');
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000, 'closed by the page');
  }

  private connect(): void {
    if (this.current === 'closed') return;
    const socket = this.createSocket(this.options.url);
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      opened = true;
      this.attempt = 0;
      this.failuresBeforeOpen = 0;
      this.troubled = false;
      this.setState('open');
      for (const message of this.book.resubscribeMessages()) socket.send(JSON.stringify(message));
    };
    socket.onmessage = (event) => {
      if (this.socket === socket) this.receive(event.data);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.troubled = true;
      this.failuresBeforeOpen = opened ? 0 : this.failuresBeforeOpen + 1;
      this.scheduleReconnect(opened && event.code === WS_CLOSE_GOING_AWAY);
      if (this.failuresBeforeOpen >= REFUSED_AFTER_FAILURES) inBackground(this.checkRefused());
    };
    // An error is always followed by close, which reconnects.
    socket.onerror = () => undefined;
  }

  /** Asks the probe whether the server answers at all: then the upgrade itself is being refused. */
  private async checkRefused(): Promise<void> {
    const answers = (await this.options.probe?.().catch(() => false)) ?? false;
    const failing = this.current === 'reconnecting' || this.current === 'connecting';
    if (answers && failing && this.failuresBeforeOpen >= REFUSED_AFTER_FAILURES) this.setState('refused');
  }

  /** `goingAway`: the server is shutting down (1001): reconnect now, to another replica, with a little jitter. */
  private scheduleReconnect(goingAway = false): void {
    if (this.current === 'closed') return;
    if (this.current !== 'refused' || this.failuresBeforeOpen < REFUSED_AFTER_FAILURES) this.setState('reconnecting');
    const delay = goingAway ? Math.floor(Math.random() * GOING_AWAY_JITTER_MS) : this.retryDelayMs(this.attempt++);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  private receive(raw: unknown): void {
    const text = typeof raw === 'string' ? raw : String(raw);
    if (this.receiveCommandOutput(text)) return;
    const parsed = parseJsonMessage(BrowserServerMessageSchema, text);
    if (!parsed.ok) {
      console.warn(`svc: ignored a WebSocket message: ${parsed.error.message}`);
      return;
    }
    const message = parsed.value;
    if (message.type === 'error') {
      this.options.onServerError?.(message.error);
      return;
    }
    this.book.receive(message).deliver();
  }

  /** Routes an ephemeral `command_output` message (outside the seq envelope); false for any other message. */
  private receiveCommandOutput(text: string): boolean {
    // A cheap look before parsing: stored events, the bulk of the traffic, are parsed once only.
    if (!text.includes('"command_output"')) return false;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return false;
    }
    if ((json as { type?: unknown } | null)?.type !== 'command_output') return false;
    const parsed = parseWith(BrowserCommandOutputMessageSchema, json);
    if (parsed.ok) this.book.receiveCommandOutput(parsed.value).deliver();
    else console.warn(`svc: ignored a command_output message: ${parsed.error.message}`);
    return true;
  }

  /** Sends now when open; otherwise the book's resubscribe covers it once the socket opens. */
  private send(message: BrowserClientMessage | null): void {
    if (message && this.socket && this.socket.readyState === OPEN) this.socket.send(JSON.stringify(message));
  }

  private setState(state: ConnectionState): void {
    if (this.current === state || this.current === 'closed') return;
    this.current = state;
    for (const listener of this.stateListeners) listener(state);
  }
}
