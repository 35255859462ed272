import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { WORKER_MAX_PAYLOAD_BYTES, WS_CLOSE_GOING_AWAY } from '@svc/protocol';
import type { TokenClaims } from '../auth/tokens';
import type { AppDeps } from '../deps';
import { toDomainError } from '../domain/errors';
import type { LiveServices } from '../live-services';
import { ExecRelay } from './exec-relay';
import { authenticateWorkerUpgrade, principalFromToken, refuseUpgrade, shuttingDown } from './upgrade-auth';
import { SharedChecks } from './shared-checks';
import type { Principal } from '../auth/principal';
import { WorkerConnection } from './worker-connection';

/** Close code of a worker socket whose token was revoked (as for a browser's revoked session). */
export const WS_CLOSE_TOKEN_REVOKED = 4401;

/** How long a worker told "going away" has to answer the close handshake before its socket is cut. */
const GOING_AWAY_CUT_MS = 5000;

/** Largest worker frame (shared with the worker, which fits every message into it). */
export { WORKER_MAX_PAYLOAD_BYTES };

/** `GET /svc/worker/ws`: worker-scope JWT at the upgrade, then the worker protocol. */
export class WorkerHub {
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: WORKER_MAX_PAYLOAD_BYTES,
    perMessageDeflate: false,
  });
  readonly exec: ExecRelay;
  private closing = false;
  /** each open connection's token id: revoking the worker token closes its socket (DELETE /tokens/{id}) */
  private readonly tokenIds = new Map<WorkerConnection, string>();
  private readonly stopRevocations: () => void;
  /** by token text: who connects with it (a fleet sharing a token reconnecting reads it once a second) */
  private readonly principals = new SharedChecks<Principal>(1000);

  constructor(
    private readonly deps: AppDeps,
    private readonly live: LiveServices,
  ) {
    this.exec = new ExecRelay(live.registry, deps.db, live.bus, deps.tokens, deps.secrets.runs);
    this.logger = deps.logger.child({ component: 'worker-ws' });
    this.stopRevocations = deps.tokens.onRevoked((jti) => {
      this.principals.clear();
      for (const [connection, tokenId] of this.tokenIds)
        if (tokenId === jti) connection.close(WS_CLOSE_TOKEN_REVOKED, 'worker token revoked');
    });
  }

  private readonly logger: AppDeps['logger'];

  /** open worker sockets (metrics) */
  get size(): number {
    return this.wss.clients.size;
  }

  async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    let token: TokenClaims;
    try {
      const resolve = (text: string) => this.principals.get(text, () => principalFromToken(text, this.deps));
      token = (await authenticateWorkerUpgrade(req, this.deps, resolve)).claims;
    } catch (err) {
      if (toDomainError(err).code === 'internal')
        this.deps.logger.error({ err }, 'worker socket authentication failed');
      refuseUpgrade(socket, err);
      return;
    }
    if (socket.destroyed) return;
    if (this.closing) return refuseUpgrade(socket, shuttingDown());
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const closing = () => this.closing;
      const connection = new WorkerConnection(ws, socket, this.live, this.exec, this.logger, closing, token);
      this.tokenIds.set(connection, token.jti);
      ws.once('close', () => this.tokenIds.delete(connection));
    });
  }

  /**
   * Closes every worker socket with 1001: each worker reconnects at once, through the balancer, to
   * another replica and goes on with its workflows there. Nothing is taken back: the connections close
   * while `closing` holds, and a server shutdown takes no workflows back (decision 0015).
   */
  goAway(): void {
    this.closing = true;
    for (const connection of this.tokenIds.keys())
      connection.close(WS_CLOSE_GOING_AWAY, 'the server is shutting down; reconnect', GOING_AWAY_CUT_MS);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.stopRevocations();
    this.exec.close();
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
