import {
  parseJsonMessage,
  ServerToWorkerMessageSchema,
  WORKER_PROTOCOL_VERSION,
  WS_CLOSE_GOING_AWAY,
  WS_CLOSE_UNSUPPORTED_VERSION,
  type DispatchMessage,
  type ExecMessage,
  type ExecResultMessage,
  type RegisterMessage,
  type WorkerErrorMessage,
  type WorkerToServerMessage,
} from '@svc/protocol';
import WebSocket from 'ws';
import { backoffDelay, type BackoffOptions } from '@svc/client';
import { errorMessage, silentLogger, type Logger } from '../util/logger';
import type { LeaseFence } from './lease-fence';
import { LinkError } from './server-link';
import type { Uplink } from './uplink';

/** What the link hands the server's requests to (the workflow manager). */
export interface LinkHandlers {
  dispatch(message: DispatchMessage): void;
  /** Runs a command for another worker's agent; the link sends the result back. */
  serveExec(message: ExecMessage): Promise<ExecResultMessage>;
  /** Workflow ids reported with each heartbeat. */
  activeWorkflows(): string[];
}

export interface WorkerLinkOptions {
  serverUrl: string;
  token: string;
  registration: Omit<RegisterMessage, 'type' | 'protocol_version'>;
  /** What goes to the server: opened on each registration, closed when the socket drops. */
  uplink: Uplink;
  handlers: LinkHandlers;
  /** The server will never accept this worker (bad token, unsupported protocol); the link has stopped. */
  onFatal(error: LinkError): void;
  reconnect?: BackoffOptions;
  logger?: Logger;
  /** Told of every contact with the server (decision 0062); none: runs are never fenced. */
  fence?: LeaseFence;
}

export const WORKER_WS_PATH = '/svc/worker/ws';

/** The most a reconnect after a server's "going away" (1001) waits: spread, not backed off. */
export const GOING_AWAY_JITTER_MS = 250;

/**
 * Reconnect back-off. Capped at 10 s so a worker is back within seconds of the server, well inside
 * the server's lease (WORKER_LEASE_SECONDS, 60 s by default) on its workflows.
 */
export const DEFAULT_RECONNECT: BackoffOptions = { baseMs: 500, maxMs: 10_000, jitter: 0.5 };

/** `http(s)://host/base` -> `ws(s)://host/base/svc/worker/ws`. */
export function workerSocketUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${WORKER_WS_PATH}`;
  return url.toString();
}

/**
 * The worker's WebSocket to the server: registers, heart-beats (and pings to notice a dead
 * peer), reconnects with exponential back-off plus jitter, opens the uplink after each
 * (re)registration (which resends every unacknowledged update) and hands the server's requests
 * to its handlers.
 */
export class WorkerLink {
  private socket: WebSocket | undefined;
  private registered = false;
  private stopped = true;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private awaitingPong = false;
  /** When the registration and the last ping were sent: an answer proves the server heard of us then. */
  private registerSentAt = 0;
  private pingSentAt = 0;
  private readonly logger: Logger;

  constructor(private readonly options: WorkerLinkOptions) {
    this.logger = options.logger ?? silentLogger;
  }

  get isRegistered(): boolean {
    return this.registered;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  /** Closes the socket and stops reconnecting. Unacknowledged updates stay in the outbox. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.teardown(new LinkError('worker is shutting down'));
    const socket = this.socket;
    this.socket = undefined;
    if (socket?.readyState === WebSocket.OPEN) socket.close(1000, 'worker stopping');
    else socket?.terminate();
  }

  private send(message: WorkerToServerMessage): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private connect(): void {
    const url = workerSocketUrl(this.options.serverUrl);
    const socket = new WebSocket(url, {
      headers: { authorization: `Bearer ${this.options.token}` },
      handshakeTimeout: 15_000,
    });
    this.socket = socket;
    socket.on('open', () => {
      this.logger.info({ url }, 'connected to server, registering');
      this.registerSentAt = Date.now();
      this.send({ type: 'register', protocol_version: WORKER_PROTOCOL_VERSION, ...this.options.registration });
    });
    socket.on('message', (data, isBinary) => {
      if (socket !== this.socket) return;
      this.receive(isBinary ? '' : data.toString());
      this.options.fence?.notify();
    });
    socket.on('pong', () => {
      this.awaitingPong = false;
      this.options.fence?.contact(this.pingSentAt);
    });
    socket.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      if (status === 401 || status === 403) {
        this.fail(new LinkError(`server refused the worker token (HTTP ${status}); check token / token_env`));
      } else {
        this.logger.warn({ status }, 'server refused the WebSocket upgrade');
        socket.terminate();
      }
    });
    socket.on('error', (err) => this.logger.warn({ err: errorMessage(err) }, 'worker socket error'));
    socket.on('close', (code, reason) => {
      if (socket !== this.socket) return;
      this.socket = undefined;
      this.teardown(new LinkError('connection to the server was lost'));
      if (code === WS_CLOSE_UNSUPPORTED_VERSION) {
        this.fail(
          new LinkError(
            `server does not support worker protocol ${WORKER_PROTOCOL_VERSION}: ${reason.toString() || 'closed 4400'}`,
          ),
        );
        return;
      }
      if (!this.stopped) this.scheduleReconnect(code);
    });
  }

  private receive(raw: string): void {
    const parsed = parseJsonMessage(ServerToWorkerMessageSchema, raw);
    if (!parsed.ok) {
      this.logger.warn({ error: parsed.error.message }, 'ignoring a malformed server message');
      return;
    }
    const message = parsed.value;
    switch (message.type) {
      case 'registered':
        this.onRegistered(message.worker_id, message.heartbeat_seconds, message.lease_seconds);
        return;
      case 'holding':
        this.onHolding(message.workflow_ids);
        return;
      case 'ack':
        this.options.uplink.ack(message.workflow_id, message.seq);
        return;
      case 'dispatch':
        this.options.handlers.dispatch(message);
        return;
      case 'exec':
        this.serveExec(message);
        return;
      case 'exec_result':
        this.options.uplink.resolveExec(message);
        return;
      case 'error':
        this.onError(message);
        return;
      default: {
        const unreachable: never = message;
        return unreachable;
      }
    }
  }

  private onError(message: WorkerErrorMessage): void {
    if (message.workflow_id !== undefined && message.seq !== undefined) {
      this.options.uplink.refused(message.workflow_id, message.seq, message.error);
      return;
    }
    this.logger.warn({ code: message.error.code, error: message.error.message }, 'server reported an error');
  }

  /** The server's answer to the first heartbeat: which runs it fenced are still its own (decision 0062). */
  private onHolding(workflowIds: string[]): void {
    this.options.fence?.holding(workflowIds);
  }

  private onRegistered(workerId: string, heartbeatSeconds: number, leaseSeconds: number | undefined): void {
    this.options.fence?.registered(leaseSeconds, this.registerSentAt);
    this.registered = true;
    this.attempt = 0;
    this.logger.info({ workerId, resend: this.options.uplink.outbox.size }, 'registered');
    clearInterval(this.heartbeatTimer);
    this.awaitingPong = false;
    // What this worker still runs goes first: the server settles which workflows stay its own before
    // it stores the updates resent next (a reconnect within the lease keeps them all).
    this.heartbeat();
    this.options.uplink.open(workerId, (message) => this.send(message));
    this.heartbeatTimer = setInterval(() => this.heartbeat(), heartbeatSeconds * 1000);
  }

  private serveExec(message: ExecMessage): void {
    void this.options.handlers
      .serveExec(message)
      .then((result) => {
        if (!this.options.uplink.sendExecResult(result))
          this.logger.warn({ requestId: message.request_id }, 'exec result lost: not connected');
      })
      .catch((err: unknown) =>
        this.logger.error({ requestId: message.request_id, error: errorMessage(err) }, 'exec request failed'),
      );
  }

  private heartbeat(): void {
    const socket = this.socket;
    if (!socket) return;
    if (this.awaitingPong) {
      this.logger.warn({}, 'server did not answer the last ping; reconnecting');
      socket.terminate();
      return;
    }
    if (this.options.fence?.check()) {
      // Our lease is up by our clock: the server may take the runs back; a new registration asks it.
      this.logger.warn({}, 'no answer from the server within the lease; reconnecting');
      socket.terminate();
      return;
    }
    this.awaitingPong = true;
    this.pingSentAt = Date.now();
    socket.ping();
    // A run that ended while its last updates wait for their ack is still this worker's to report.
    const active = new Set([
      ...this.options.handlers.activeWorkflows(),
      ...this.options.uplink.outbox.workflowsInProgress(),
    ]);
    this.send({ type: 'heartbeat', active_workflows: [...active] });
  }

  private teardown(reason: LinkError): void {
    this.registered = false;
    this.options.fence?.disconnected();
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    this.options.uplink.close(reason);
  }

  private scheduleReconnect(code: number): void {
    // A server shutting down says "going away": reconnect now (the balancer picks another replica),
    // with a little jitter so its workers do not all arrive in the same instant (decision 0061).
    const delay =
      code === WS_CLOSE_GOING_AWAY
        ? Math.floor(Math.random() * GOING_AWAY_JITTER_MS)
        : backoffDelay(this.attempt++, this.options.reconnect ?? DEFAULT_RECONNECT);
    this.logger.warn({ code, delayMs: delay, attempt: this.attempt }, 'disconnected; reconnecting');
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private fail(error: LinkError): void {
    this.logger.error({ error: error.message }, 'worker link stopped');
    this.stop();
    this.options.onFatal(error);
  }
}
