import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import {
  BrowserClientMessageSchema,
  hasProjectChange,
  isProjectEventType,
  parseJsonMessage,
  PROJECT_ACCESS_CHANGES,
  type BrowserClientMessage,
  WS_CLOSE_GOING_AWAY,
  WS_CLOSE_RATE_LIMITED,
} from '@svc/protocol';
import type { AppDeps } from '../deps';
import type { Principal } from '../auth/principal';
import { credentialProblem } from '../auth/revalidate';
import { toDomainError } from '../domain/errors';
import type { StoredEvent } from '../events';
import { BrowserClient, WS_CLOSE_SESSION_REVOKED } from './browser-client';
import { BrowserSubscriptions } from './browser-subscriptions';
import { envelopeBytes } from '../events/envelope';
import { authenticateBrowserUpgrade, principalFromToken, refuseUpgrade, shuttingDown } from './upgrade-auth';
import { MessageBucket } from './rate-limit';
import { SharedChecks } from './shared-checks';
import { StaggeredSweep } from './staggered-sweep';
import { streamOwner } from '../http/stream-slots';

export interface BrowserHubOptions {
  /** largest inbound frame; ws closes the socket with 1009 past it */
  maxPayloadBytes: number;
  /** backlog per client before it is dropped */
  maxBufferedBytes: number;
  pingIntervalMs: number;
  /** how often every socket's credential is checked again (revocations by other replicas, deleted users) */
  revalidateIntervalMs: number;
}

/**
 * How long one answer about a credential (who it is, whether it still holds) serves every socket of it:
 * a reconnect storm or a sweep reads the database once per credential, not once per socket. Revocations
 * made here forget the answers at once (decision 0068).
 */
const CREDENTIAL_ANSWER_MS = 1000;

export const BROWSER_HUB_DEFAULTS: BrowserHubOptions = {
  maxPayloadBytes: 64 * 1024,
  maxBufferedBytes: 4 * 1024 * 1024,
  pingIntervalMs: 30_000,
  revalidateIntervalMs: 30_000,
};

/** `GET /svc/ws`: live events for browsers, per workflow (with replay) and per project. */
export class BrowserHub {
  private readonly wss: WebSocketServer;
  private readonly clients = new Set<BrowserClient>();
  private readonly subscriptions: BrowserSubscriptions;
  private readonly unsubscribe: () => void;
  private readonly stopOutput: () => void;
  private readonly stopRevocations: () => void;
  private readonly pings: StaggeredSweep<BrowserClient>;
  private readonly revalidator: NodeJS.Timeout;
  private readonly options: BrowserHubOptions;
  /** by token id: why the credential stopped being valid, or null */
  private readonly credentialProblems = new SharedChecks<string | null>(CREDENTIAL_ANSWER_MS);
  /** by token text: who opens a socket with it */
  private readonly principals = new SharedChecks<Principal>(CREDENTIAL_ANSWER_MS);

  constructor(
    private readonly deps: AppDeps,
    options: Partial<BrowserHubOptions> = {},
  ) {
    this.options = { ...BROWSER_HUB_DEFAULTS, ...options };
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: this.options.maxPayloadBytes,
      perMessageDeflate: false,
    });
    this.subscriptions = new BrowserSubscriptions(deps);
    this.unsubscribe = deps.events.subscribe((event) => this.route(event));
    // Live command output goes to the workflow's subscribers as it comes, outside the seq stream.
    this.stopOutput = deps.events.subscribeCommandOutput((message) => {
      let text: string | undefined;
      this.subscriptions.forWorkflow(message.workflow_id, (sub) =>
        sub.client.sendText((text ??= JSON.stringify(message))),
      );
    });
    this.pings = new StaggeredSweep(this.options.pingIntervalMs, (client) => this.ping(client));
    // A revoked session (logout, token revocation) closes its sockets at once on this replica.
    this.stopRevocations = deps.tokens.onRevoked((jti) => {
      this.forgetAnswers();
      for (const client of this.clients) if (client.principal.claims.jti === jti) this.revoked(client, 'token revoked');
    });
    this.revalidator = setInterval(
      () =>
        void this.revalidate().catch((err: unknown) =>
          this.deps.logger.warn({ err }, 'browser socket re-validation failed'),
        ),
      this.options.revalidateIntervalMs,
    );
    this.revalidator.unref();
  }

  /**
   * Checks every socket's credential against live state again (revoked, expired, user deleted, narrowed
   * project left) and closes the ones no longer valid with 4401. Runs on a timer and on every inbound message.
   */
  async revalidate(): Promise<void> {
    if (this.clients.size === 0) return;
    await this.deps.tokens.refreshRevocations();
    this.forgetAnswers();
    // One check a credential, not a socket: ten thousand tabs of one session are one question.
    const byCredential = new Map<string, BrowserClient[]>();
    for (const client of this.clients) {
      if (!client.open) continue;
      const { jti } = client.principal.claims;
      const group = byCredential.get(jti);
      if (group) group.push(client);
      else byCredential.set(jti, [client]);
    }
    await Promise.all(
      [...byCredential.values()].map(async (clients) => {
        const reason = await this.credentialProblem(clients[0]!.principal);
        if (reason) for (const client of clients) this.revoked(client, reason);
      }),
    );
  }

  /** The next upgrade, message and subscribe of every credential asks the database again. */
  private forgetAnswers(): void {
    this.credentialProblems.clear();
    this.principals.clear();
    this.subscriptions.forgetAccess();
  }

  private async stillValid(client: BrowserClient): Promise<boolean> {
    if (!client.open) return false;
    const reason = await this.credentialProblem(client.principal);
    if (!reason) return true;
    this.revoked(client, reason);
    return false;
  }

  /** Why the credential no longer holds, or null; a database hiccup is not a revocation (the next check decides). */
  private async credentialProblem(principal: Principal): Promise<string | null> {
    try {
      return await this.credentialProblems.get(principal.claims.jti, () => credentialProblem(principal, this.deps));
    } catch (err) {
      this.deps.logger.warn({ err }, 'browser socket re-validation failed');
      return null;
    }
  }

  private revoked(client: BrowserClient, reason: string): void {
    this.subscriptions.removeClient(client);
    client.drop(WS_CLOSE_SESSION_REVOKED, `${reason}; sign in again`);
  }

  get size(): number {
    return this.clients.size;
  }

  /** How many sockets follow the workflow here (observability and tests). */
  subscriberCount(workflowId: string): number {
    return this.subscriptions.workflowSubscribers(workflowId);
  }

  async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    let principal: Principal;
    try {
      principal = await authenticateBrowserUpgrade(req, this.deps, (token) =>
        this.principals.get(token, () => principalFromToken(token, this.deps)),
      );
    } catch (err) {
      if (toDomainError(err).code === 'internal')
        this.deps.logger.error({ err }, 'browser socket authentication failed');
      refuseUpgrade(socket, err);
      return;
    }
    if (socket.destroyed) return;
    if (this.deps.serving.draining) return refuseUpgrade(socket, shuttingDown());
    let release: () => void;
    try {
      release = this.deps.streams.acquire(streamOwner(principal));
    } catch (err) {
      return refuseUpgrade(socket, err);
    }
    // Whatever ends the upgrade or the socket gives the slot back (release is idempotent).
    socket.once('close', release);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.connected(ws, socket, principal));
  }

  /** Closes every socket with 1001: the page reconnects at once, through the balancer, to another replica. */
  goAway(): void {
    for (const client of this.clients) client.drop(WS_CLOSE_GOING_AWAY, 'the server is shutting down; reconnect');
  }

  async close(): Promise<void> {
    this.pings.stop();
    clearInterval(this.revalidator);
    this.stopRevocations();
    this.unsubscribe();
    this.stopOutput();
    for (const client of this.clients) client.socket.terminate();
    // Subscriptions being set up read the database: let them finish before it closes.
    await Promise.allSettled([...this.clients].map((c) => c.queue));
    this.clients.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private connected(ws: WebSocket, socket: Duplex, principal: Principal): void {
    const client = new BrowserClient(ws, socket, principal, { maxBufferedBytes: this.options.maxBufferedBytes });
    this.clients.add(client);
    this.pings.add(client);
    ws.on('pong', () => (client.isAlive = true));
    const bucket = new MessageBucket(this.deps.config.sockets.browser);
    ws.on('message', (data, isBinary) => {
      if (!client.open) return;
      // A flood of subscribes would keep the database busy for everyone: past the limit the socket is closed.
      if (!bucket.take()) return client.drop(WS_CLOSE_RATE_LIMITED, 'too many messages; reconnect later');
      client.queue = client.queue.then(() => this.receive(client, data, isBinary));
    });
    ws.on('error', (err) => this.deps.logger.debug({ err }, 'browser socket error'));
    ws.on('close', () => {
      this.clients.delete(client);
      this.pings.delete(client);
      this.subscriptions.removeClient(client);
    });
  }

  private async receive(client: BrowserClient, data: RawData, isBinary: boolean): Promise<void> {
    if (!(await this.stillValid(client))) return;
    const parsed = isBinary
      ? ({ ok: false, error: { message: 'expected a JSON text message' } } as const)
      : parseJsonMessage(BrowserClientMessageSchema, data.toString());
    if (!parsed.ok) {
      client.sendError({ code: 'invalid_input', message: parsed.error.message });
      return;
    }
    try {
      await this.handle(client, parsed.value);
    } catch (err) {
      const error = toDomainError(err);
      if (error.code === 'internal') this.deps.logger.error({ err }, 'browser message failed');
      client.sendError({ code: error.code, message: error.message });
    }
  }

  private async handle(client: BrowserClient, message: BrowserClientMessage): Promise<void> {
    switch (message.type) {
      case 'subscribe':
        return this.subscriptions.subscribeWorkflow(client, message.workflow_id, message.since_seq);
      case 'unsubscribe':
        return this.subscriptions.unsubscribeWorkflow(client, message.workflow_id);
      case 'subscribe_project':
        return this.subscriptions.subscribeProject(client, message.project_id);
      case 'unsubscribe_project':
        return this.subscriptions.unsubscribeProject(client, message.project_id);
      default: {
        const unreachable: never = message;
        return unreachable;
      }
    }
  }

  /** Fans one event out: workflow subscribers, project subscribers, or everyone (worker_status). */
  private route(event: StoredEvent): void {
    if (event.type === 'worker_status' && !event.project_id) {
      const bytes = envelopeBytes(event);
      for (const client of this.clients) client.sendText(bytes);
      return;
    }
    if (event.workflow_id) this.subscriptions.forWorkflow(event.workflow_id, (sub) => sub.onEvent(event));
    if (event.project_id && isProjectEventType(event.type)) {
      this.subscriptions.forProject(event.project_id, (client) => {
        if (!event.workflow_id || !client.workflows.has(event.workflow_id)) client.sendText(envelopeBytes(event));
      });
    }
    // who may see what is checked again after membership changes and deletions
    if (event.project_id && hasProjectChange(event, PROJECT_ACCESS_CHANGES))
      this.subscriptions.recheckProject(event.project_id);
  }

  /** Ping/pong liveness: a client that did not answer its last ping, a period ago, is cut. */
  private ping(client: BrowserClient): void {
    // a closing socket is ended by its close handshake or the drop watchdog, not by a missed pong
    if (client.socket.readyState !== client.socket.OPEN) return;
    if (!client.isAlive) {
      client.socket.terminate();
      return;
    }
    client.isAlive = false;
    client.socket.ping();
  }
}
