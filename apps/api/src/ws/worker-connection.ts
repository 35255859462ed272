import { withLogIds } from '@svc/observability';
import type { Duplex } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import WebSocket, { type RawData } from 'ws';
import type { Logger } from 'pino';
import {
  parseJsonMessage,
  WORKER_PROTOCOL_VERSION,
  WorkerToServerMessageSchema,
  WS_CLOSE_UNSUPPORTED_VERSION,
  type CommandOutputMessage,
  type ExecResultMessage,
  type HeartbeatMessage,
  type RegisterMessage,
  type ServerToWorkerMessage,
  type UpdateMessage,
  type WorkerToServerMessage,
  type WsErrorInfo,
} from '@svc/protocol';
import type { TokenClaims } from '../auth/tokens';
import type { LiveServices } from '../live-services';
import type { WorkerSession } from '../dispatch/worker-session';
import type { ExecRelay } from './exec-relay';
import { TickCork } from './tick-cork';
import { toDomainError } from '../domain/errors';
import { MessageBucket } from './rate-limit';

/** Policy violation: the first message was not `register`. */
export const WS_CLOSE_POLICY = 1008;

/**
 * Bytes of one worker's messages the server holds at most before it stops reading that socket: those
 * being handled and the updates waiting for their commit (a worker may send far more than it has acks
 * for, e.g. a whole outbox after a reconnect). At least one frame is always let in.
 */
export const MAX_WORKER_BACKLOG_BYTES = 8 * 1024 * 1024;

/** One worker socket: registration, then heartbeats, updates (stored, then acked) and exec relays. */
export class WorkerConnection implements WorkerSession {
  workerId = '';
  name = '';
  capacity = 0;
  labels: readonly string[] = [];
  /** `svc-worker --once`: one run, then no more */
  private once = false;
  private state: 'new' | 'registering' | 'registered' | 'closed' = 'new';
  private queue: Promise<void> = Promise.resolve();
  private readonly cork: TickCork;
  private readonly bucket: MessageBucket;
  /** messages received and not yet handled, updates until their commit */
  private backlog = 0;
  private backlogBytes = 0;
  private readPaused = false;
  /** messages that had to wait for the rate limit (observability and tests) */
  delayedMessages = 0;
  /** the most bytes this connection held (observability and tests) */
  peakBacklogBytes = 0;

  /** true while the socket is not read (rate limit or backlog) */
  takesRuns(): boolean {
    return !this.once || !this.live.registry.hasServed(this.workerId);
  }

  get readingPaused(): boolean {
    return this.readPaused;
  }

  constructor(
    private readonly socket: WebSocket,
    rawSocket: Duplex,
    private readonly live: LiveServices,
    private readonly exec: ExecRelay,
    private readonly logger: Logger,
    /** true while the server shuts down: a lost connection then keeps its workflows */
    private readonly shuttingDown: () => boolean,
    /** the worker token: its jti is recorded on the worker's row (it reaches this worker's workflows), and the
     * job tokens minted for the commands this worker asks other workers to run derive from it */
    private readonly token: TokenClaims,
  ) {
    this.cork = new TickCork(rawSocket);
    this.bucket = new MessageBucket(live.config.sockets.worker);
    socket.on('message', (data, isBinary) => {
      const bytes = frameBytes(data);
      this.waiting(1, bytes);
      this.queue = this.queue
        .then(() => this.pace())
        .then(() => this.receive(data, isBinary, bytes))
        .catch((err: unknown) => this.failed(err))
        .finally(() => this.waiting(-1, -bytes));
      live.background.run(this.queue);
    });
    socket.on('error', (err) => logger.debug({ err }, 'worker socket error'));
    socket.on('close', () => live.background.run(this.closed()));
  }

  /**
   * The worker's rate limit slows it down instead of closing it: a message over the limit waits until
   * the bucket has refilled, and while more than a burst of messages waits the socket is not read, so
   * TCP back-pressure paces the worker. A closed worker would reconnect and resend its whole outbox at
   * once, so closing could never end a legit burst (a reconnect after an outage).
   */
  private async pace(): Promise<void> {
    if (this.bucket.take()) return;
    this.delayedMessages += 1;
    const wait = this.bucket.debtMs();
    if (wait > 0 && this.socket.readyState === WebSocket.OPEN) await delay(wait);
  }

  /**
   * Counts a received message (and its bytes) as waiting; reading stops while more than a burst of
   * messages or MAX_WORKER_BACKLOG_BYTES wait, and goes on once both are down to half.
   */
  private waiting(change: 1 | -1, bytes: number): void {
    this.backlog += change;
    this.backlogBytes += bytes;
    this.peakBacklogBytes = Math.max(this.peakBacklogBytes, this.backlogBytes);
    const burst = this.live.config.sockets.worker.burst;
    if (!this.readPaused && (this.backlog > burst || this.backlogBytes > MAX_WORKER_BACKLOG_BYTES)) {
      this.readPaused = true;
      this.socket.pause();
    } else if (this.readPaused && this.backlog <= burst / 2 && this.backlogBytes <= MAX_WORKER_BACKLOG_BYTES / 2) {
      this.readPaused = false;
      this.socket.resume();
    }
  }

  send(message: ServerToWorkerMessage): boolean {
    return this.sendText(JSON.stringify(message));
  }

  /** An ack, written out directly: one per stored update, the most frequent message by far. */
  private sendAck(workflowId: string, seq: number): boolean {
    return this.sendText(`{"type":"ack","workflow_id":${JSON.stringify(workflowId)},"seq":${seq}}`);
  }

  private sendText(text: string): boolean {
    if (this.socket.readyState !== WebSocket.OPEN) return false;
    this.cork.hold(); // a batch's acks leave together
    this.socket.send(text);
    return true;
  }

  close(code: number, reason: string, cutAfterMs = 1000): void {
    this.socket.close(code, reason);
    // A peer that does not answer the close handshake (dead host) is cut.
    setTimeout(() => this.socket.terminate(), cutAfterMs).unref();
  }

  private sendError(error: WsErrorInfo): void {
    this.send({ type: 'error', error });
  }

  private async receive(data: RawData, isBinary: boolean, bytes: number): Promise<void> {
    if (this.state === 'closed') return;
    const text = isBinary ? '' : data.toString();
    if (this.state === 'new' && this.refusesVersion(text)) return;
    const parsed = parseJsonMessage(WorkerToServerMessageSchema, text);
    if (!parsed.ok) {
      this.sendError({
        code: 'invalid_input',
        message: isBinary ? 'expected a JSON text message' : parsed.error.message,
      });
      if (this.state === 'new') this.close(WS_CLOSE_POLICY, 'the first message must be a valid register');
      return;
    }
    const message = parsed.value;
    if (this.state === 'new' && message.type !== 'register') {
      this.sendError({ code: 'invalid_input', message: 'the first message must be register' });
      this.close(WS_CLOSE_POLICY, 'the first message must be register');
      return;
    }
    await this.handleAbout(message, bytes);
  }

  /** What is logged while a message about a run is handled carries the run's id. */
  private handleAbout(message: WorkerToServerMessage, bytes: number): Promise<void> {
    if (!('workflow_id' in message) || message.workflow_id === undefined) return this.handle(message, bytes);
    return withLogIds({ run_id: message.workflow_id }, () => this.handle(message, bytes));
  }

  /** A `register` with another protocol version is closed with 4400 before its other fields are read. */
  private refusesVersion(text: string): boolean {
    let version: unknown;
    try {
      const value = JSON.parse(text) as { type?: unknown; protocol_version?: unknown };
      if (value?.type !== 'register') return false;
      version = value.protocol_version;
    } catch {
      return false;
    }
    if (version === WORKER_PROTOCOL_VERSION) return false;
    this.state = 'closed';
    this.close(
      WS_CLOSE_UNSUPPORTED_VERSION,
      `unsupported worker protocol version ${JSON.stringify(version)}; this server speaks ${WORKER_PROTOCOL_VERSION}`.slice(
        0,
        120,
      ),
    );
    return true;
  }

  private async handle(message: WorkerToServerMessage, bytes: number): Promise<void> {
    switch (message.type) {
      case 'register':
        if (this.state !== 'new') return this.sendError({ code: 'conflict', message: 'already registered' });
        return this.register(message);
      case 'heartbeat':
        return this.heartbeat(message);
      case 'update':
        return this.update(message, bytes);
      case 'exec_request':
        this.live.background.run(
          this.exec.request(this, message, this.token).catch((err: unknown) => this.failed(err)),
        );
        return;
      case 'command_output':
        return this.commandOutput(message);
      case 'exec_result':
        return this.execResult(message);
      default: {
        const unreachable: never = message;
        return unreachable;
      }
    }
  }

  private heartbeat(message: HeartbeatMessage): Promise<void> | undefined {
    const { registry, dispatcher } = this.live;
    registry.heartbeat(this);
    const first = !registry.isReconciled(this.workerId);
    const reconciled = dispatcher.heartbeat(this, message.active_workflows);
    // The first heartbeat says what a (re)connected worker runs: the updates it resends after it
    // are stored only once that is settled (they may belong to a workflow it gets back).
    if (first) return reconciled;
    this.live.background.run(reconciled);
    return undefined;
  }

  /** Live output of a command: the worker's own workflow's, or of an exec it runs for another worker. */
  private async commandOutput(message: CommandOutputMessage): Promise<void> {
    const runsExec = this.exec.runsFor(this.workerId, message.workflow_id);
    const refusal = await this.live.ingest.relayCommandOutput(this.workerId, message, runsExec);
    if (refusal) this.send({ type: 'error', error: refusal, workflow_id: message.workflow_id });
  }

  private execResult(message: ExecResultMessage): void {
    if (!this.exec.result(this, message))
      this.sendError({
        code: 'not_found',
        message: `no exec request ${message.request_id} is waiting for this worker`,
      });
  }

  private async register(message: RegisterMessage): Promise<void> {
    this.state = 'registering';
    let row;
    try {
      row = await this.live.registry.upsert(message, this.token.jti);
    } catch (err) {
      // Nothing is registered: the worker reconnects and tries again.
      this.logger.error({ err, worker: message.name }, 'worker registration failed');
      this.sendError({ code: 'unavailable', message: 'registration failed; try again' });
      this.state = 'closed';
      this.close(1011, 'registration failed');
      return;
    }
    if (this.socket.readyState !== WebSocket.OPEN) return;
    Object.assign(this, { workerId: row.id, name: row.name, capacity: row.capacity, labels: message.labels });
    this.once = message.once === true;
    this.state = 'registered';
    // What this replica cached of the worker's workflows may be stale: it may come from another replica.
    this.live.ingest.workerAttached(row.id);
    this.live.registry.attach(this);
    this.send({
      type: 'registered',
      worker_id: row.id,
      protocol_version: WORKER_PROTOCOL_VERSION,
      heartbeat_seconds: this.live.config.workers.heartbeatSeconds,
      ...leaseOf(this.live.config.workers),
    });
    this.logger.info({ worker: row.name, worker_id: row.id, capacity: row.capacity }, 'worker registered');
    this.live.dispatcher.kick();
  }

  /**
   * Stored (or found stored) -> ack; refused -> error. Not awaited, so the next updates join the
   * batch: acks follow their batch's commit, and the update counts as waiting until then.
   */
  private update(message: UpdateMessage, bytes: number): void {
    this.waiting(1, bytes);
    this.live.ingest
      .submit(this.workerId, message)
      .then(
        (outcome) => {
          if (outcome.kind === 'refused')
            this.send({ type: 'error', error: outcome.error, workflow_id: message.workflow_id, seq: message.seq });
          else this.sendAck(message.workflow_id, message.seq);
        },
        // Refused with its ids, so the worker resends this update rather than wait for an ack.
        (err: unknown) => this.failed(err, { workflow_id: message.workflow_id, seq: message.seq }),
      )
      .finally(() => this.waiting(-1, -bytes));
  }

  private async closed(): Promise<void> {
    const wasRegistered = this.state === 'registered';
    this.state = 'closed';
    if (!wasRegistered) return;
    // On shutdown the worker keeps its workflows: it reconnects to the next server and goes on. This
    // replica, still draining, only stops handing it work (its row stays as it is: no lease starts).
    if (this.shuttingDown()) return this.live.registry.forget(this);
    this.exec.workerGone(this.workerId);
    if (!(await this.live.registry.detach(this))) return;
    const { leaseSeconds } = this.live.config.workers;
    if (leaseSeconds > 0) {
      // The worker keeps its workflows for its lease: reconnecting within it, it goes on with them.
      this.logger.warn(
        { worker: this.name, leaseSeconds },
        'worker disconnected; it keeps its workflows for its lease',
      );
      return;
    }
    this.logger.warn({ worker: this.name }, 'worker disconnected; its workflows go back to the queue');
    await this.live.dispatcher.takeBack(this.workerId);
  }

  /** A message that could not be handled: the contract's code (e.g. `unavailable` while the database is down). */
  private failed(err: unknown, update?: { workflow_id: string; seq: number }): void {
    const { code, message } = toDomainError(err);
    if (code === 'internal') this.logger.error({ err, worker: this.name }, 'worker message handling failed');
    else this.logger.warn({ err, worker: this.name, code }, 'worker message not handled');
    if (update) this.send({ type: 'error', error: { code, message }, ...update });
    else this.sendError({ code, message });
  }
}

/**
 * The lease the worker fences its runs by (the server takes them back only after a margin; decision
 * 0062). Not told when it is no longer than a heartbeat: a worker would count it as lost between two.
 */
function leaseOf({ leaseSeconds, heartbeatSeconds }: { leaseSeconds: number; heartbeatSeconds: number }) {
  return leaseSeconds === 0 || leaseSeconds > heartbeatSeconds ? { lease_seconds: leaseSeconds } : {};
}

function frameBytes(data: RawData): number {
  return Array.isArray(data) ? data.reduce((sum, part) => sum + part.length, 0) : data.byteLength;
}
