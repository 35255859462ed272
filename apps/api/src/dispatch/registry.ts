import type { Logger } from 'pino';
import type { Db, Worker as WorkerRow } from '@svc/db';
import type { RegisterMessage } from '@svc/protocol';
import type { EventStore } from '../events';
import type { BackgroundWork } from '../lib/background-work';
import { presentWorkerById } from './worker-list';
import { WS_CLOSE_REPLACED, type WorkerSession } from './worker-session';

/** What the registry knows of one connection. */
interface Connection {
  session: WorkerSession;
  /** Date.now() of the last heartbeat (or of the registration) */
  lastSeenAt: number;
  /** the last_seen_at its row was last given (registration, or persistHeartbeats) */
  persistedAt: number;
  /** Workflows this connection runs: dispatched to it here, or reported in its heartbeats. */
  holding: Set<string>;
  /** Workflows being claimed for it here, until their dispatch is sent or given up (see `beginClaim`). */
  claiming: Set<string>;
  /** Set by the first heartbeat, which says what a (re)connected worker really runs. */
  reconciled: boolean;
  /** Whether it has held a workflow: a `--once` worker takes no other (WorkerSession.takesRuns). */
  served: boolean;
}

export interface WorkerRegistryDeps {
  db: Db;
  events: EventStore;
  logger: Logger;
  background: BackgroundWork;
  /** this API replica: recorded on the rows of the workers connected here */
  replicaId: string;
  /** told when a worker's row changes (online, offline): runs no online worker can take say so */
  routing?: { kick(): void };
}

/**
 * The workers connected to this replica, what each runs, and their rows (status, last_seen_at and the
 * replica holding the socket) in the database, which every replica reads for liveness and leases.
 */
export class WorkerRegistry {
  private readonly connections = new Map<string, Connection>();

  constructor(private readonly deps: WorkerRegistryDeps) {}

  /** Upserts the worker's row by name and marks it online, recording the worker token it came with. */
  async upsert(message: RegisterMessage, tokenJti: string): Promise<WorkerRow> {
    const data = {
      token_jti: tokenJti,
      labels: message.labels,
      capacity: message.capacity,
      version: message.version,
      hostname: message.hostname,
      status: 'online',
      last_seen_at: new Date(),
      replica_id: this.deps.replicaId,
    };
    return this.deps.db.worker.upsert({
      where: { name: message.name },
      create: { name: message.name, ...data },
      update: data,
    });
  }

  /** Makes `session` the worker's connection; an older one of the same worker is closed (newest wins). */
  attach(session: WorkerSession): void {
    const previous = this.connections.get(session.workerId)?.session;
    const now = Date.now();
    this.connections.set(session.workerId, {
      session,
      lastSeenAt: now,
      persistedAt: now,
      holding: new Set(),
      claiming: new Set(),
      reconciled: false,
      served: false,
    });
    if (previous && previous !== session) {
      this.deps.logger.warn({ worker: session.name }, 'worker connected again; closing its older connection');
      previous.close(WS_CLOSE_REPLACED, 'replaced by a newer connection of the same worker');
    }
    this.announce(session.workerId);
  }

  /**
   * Forgets a closed connection; true when it was the worker's current one anywhere (its work must be
   * taken back): not when the worker has connected to another replica meanwhile.
   */
  async detach(session: WorkerSession): Promise<boolean> {
    if (!this.isCurrent(session)) return false;
    this.connections.delete(session.workerId);
    // last_seen_at is when its lease starts: the connection closing is the last we heard of it.
    const { count } = await this.deps.db.worker.updateMany({
      where: { id: session.workerId, replica_id: this.deps.replicaId },
      data: { status: 'offline', last_seen_at: new Date(), replica_id: null },
    });
    if (count === 0) return false;
    this.announce(session.workerId);
    return true;
  }

  /**
   * Forgets a connection closed by this replica's shutdown without touching the worker's row: the
   * worker is reconnecting elsewhere, keeps its workflows, and no lease starts (decision 0061).
   */
  forget(session: WorkerSession): void {
    if (this.isCurrent(session)) this.connections.delete(session.workerId);
  }

  /** A heartbeat is kept in memory; persistHeartbeats writes the rows now and then (decision 0068). */
  heartbeat(session: WorkerSession): void {
    const connection = this.current(session);
    if (connection) connection.lastSeenAt = Date.now();
  }

  /**
   * Writes last_seen_at (and online, and this replica) in one statement for the workers connected here
   * heard from since their row was written, when that is `staleAfterMs` ago or more: every replica reads
   * the rows for liveness and leases, and a row kept well within the offline limit is all they need.
   * Returns how many rows it wrote.
   */
  async persistHeartbeats(staleAfterMs: number): Promise<number> {
    const at = Date.now();
    const due = [...this.connections.entries()].filter(
      ([, c]) => c.lastSeenAt > c.persistedAt && at - c.persistedAt >= staleAfterMs,
    );
    if (due.length === 0) return 0;
    await this.deps.db.worker.updateMany({
      where: { id: { in: due.map(([id]) => id) } },
      data: { last_seen_at: new Date(at), status: 'online', replica_id: this.deps.replicaId },
    });
    for (const [, connection] of due) connection.persistedAt = at;
    return due.length;
  }

  /** True the first time it is called for a connection: its first heartbeat says what it really runs. */
  reconcile(session: WorkerSession): boolean {
    const connection = this.current(session);
    if (!connection || connection.reconciled) return false;
    connection.reconciled = true;
    return true;
  }

  /** Whether the worker's connection has sent its first heartbeat yet. */
  isReconciled(workerId: string): boolean {
    return this.connections.get(workerId)?.reconciled ?? false;
  }

  holds(workerId: string, workflowId: string): boolean {
    const connection = this.connections.get(workerId);
    return !!connection && holdsOn(connection, workflowId);
  }

  /** Whether a worker connected here holds the run or is being handed it. */
  heldHere(workflowId: string): boolean {
    for (const connection of this.connections.values()) if (holdsOn(connection, workflowId)) return true;
    return false;
  }

  /**
   * A claim for the worker begins: from before its UPDATE until the dispatch is sent or given up, the
   * run counts as held, so a first heartbeat that read the claimed row before the dispatch reached the
   * worker does not take it back as one the worker lost.
   */
  beginClaim(workerId: string, workflowId: string): void {
    this.connections.get(workerId)?.claiming.add(workflowId);
  }

  endClaim(workerId: string, workflowId: string): void {
    this.connections.get(workerId)?.claiming.delete(workflowId);
  }

  hold(workerId: string, workflowId: string): void {
    const connection = this.connections.get(workerId);
    connection?.holding.add(workflowId);
    if (connection) connection.served = true;
  }

  /** Whether the worker's connection has held a workflow (a `--once` worker then takes no other). */
  hasServed(workerId: string): boolean {
    return this.connections.get(workerId)?.served ?? false;
  }

  release(workerId: string, workflowId: string): void {
    this.connections.get(workerId)?.holding.delete(workflowId);
  }

  get(workerId: string): WorkerSession | undefined {
    return this.connections.get(workerId)?.session;
  }

  /** A connected worker by id or by name. */
  find(idOrName: string): WorkerSession | undefined {
    return this.get(idOrName) ?? this.connected().find((s) => s.name === idOrName);
  }

  connected(): WorkerSession[] {
    return [...this.connections.values()].map((c) => c.session);
  }

  /** The connected workers that have not heart-beaten for `offlineAfterMs`. */
  silent(offlineAfterMs: number, now = Date.now()): WorkerSession[] {
    return [...this.connections.values()].filter((c) => now - c.lastSeenAt > offlineAfterMs).map((c) => c.session);
  }

  /**
   * Marks offline the workers the database still calls online but that nobody has heard from for
   * `offlineAfterMs` (they were connected to a replica that stopped or died); returns their ids.
   */
  async markSilentOffline(offlineAfterMs: number): Promise<string[]> {
    const { db } = this.deps;
    const cutoff = new Date(Date.now() - offlineAfterMs);
    const stale = await db.worker.findMany({
      where: { status: 'online', last_seen_at: { lt: cutoff } },
      select: { id: true },
    });
    const ids = stale.map((w) => w.id).filter((id) => !this.connections.has(id));
    if (ids.length === 0) return [];
    await db.worker.updateMany({
      where: { id: { in: ids }, status: 'online', last_seen_at: { lt: cutoff } },
      data: { status: 'offline', replica_id: null },
    });
    for (const id of ids) this.announce(id);
    return ids;
  }

  /**
   * Offline workers (not connected here) last heard of before `heardBefore`: their lease ran out, so
   * their unfinished workflows belong back in the queue.
   */
  async leaseExpiredIds(heardBefore: Date): Promise<string[]> {
    const rows = await this.deps.db.worker.findMany({
      where: { status: 'offline', last_seen_at: { lt: heardBefore } },
      select: { id: true },
    });
    return rows.map((r) => r.id).filter((id) => !this.connections.has(id));
  }

  /** Broadcasts the worker's current row as `worker_status` (best effort, never throws). */
  private announce(workerId: string): void {
    this.deps.routing?.kick();
    this.deps.background.run(
      presentWorkerById(this.deps.db, workerId).then((worker) => {
        if (worker) this.deps.events.publishWorkerStatus(worker);
      }),
    );
  }

  private current(session: WorkerSession): Connection | undefined {
    const connection = this.connections.get(session.workerId);
    return connection?.session === session ? connection : undefined;
  }

  private isCurrent(session: WorkerSession): boolean {
    return this.current(session) !== undefined;
  }
}

/** The connection's worker holds the run, or is being handed it (a claim in flight). */
const holdsOn = (connection: Connection, workflowId: string): boolean =>
  connection.holding.has(workflowId) || connection.claiming.has(workflowId);
