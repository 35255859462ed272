import type { Logger } from 'pino';
import type { Db, Worker as WorkerRow } from '@svc/db';
import type { RegisterMessage, ServerToWorkerMessage } from '@svc/protocol';
import type { EventBus } from './events';
import type { BackgroundWork } from './dispatch-lock';
import { presentWorkerById } from './worker-registry-list';

/** A registered worker connection as the dispatcher sees it (implemented by the worker WebSocket). */
export interface WorkerSession {
  readonly workerId: string;
  readonly name: string;
  readonly capacity: number;
  /** Date.now() of the last heartbeat (or of the registration) */
  lastSeenAt: number;
  /** Workflows this connection runs: dispatched to it here, or reported in its heartbeats. */
  readonly holding: Set<string>;
  /** Set by the first heartbeat, which says what a (re)connected worker really runs. */
  reconciled: boolean;
  /** False when the socket is no longer open (the message was not sent). */
  send(message: ServerToWorkerMessage): boolean;
  close(code: number, reason: string): void;
}

export const WS_CLOSE_REPLACED = 4409;
export const WS_CLOSE_HEARTBEAT_MISSED = 4408;

/** The workers connected to this server, and their rows (status, last_seen_at) in the database. */
export class WorkerRegistry {
  private readonly sessions = new Map<string, WorkerSession>();

  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly logger: Logger,
    private readonly background: BackgroundWork,
  ) {}

  /** Upserts the worker's row by name and marks it online. */
  async upsert(message: RegisterMessage): Promise<WorkerRow> {
    const data = {
      labels: message.labels,
      capacity: message.capacity,
      version: message.version,
      hostname: message.hostname,
      status: 'online',
      last_seen_at: new Date(),
    };
    return this.db.worker.upsert({
      where: { name: message.name },
      create: { name: message.name, ...data },
      update: data,
    });
  }

  /** Makes `session` the worker's connection; an older one of the same worker is closed (newest wins). */
  attach(session: WorkerSession): void {
    const previous = this.sessions.get(session.workerId);
    this.sessions.set(session.workerId, session);
    if (previous && previous !== session) {
      this.logger.warn({ worker: session.name }, 'worker connected again; closing its older connection');
      previous.close(WS_CLOSE_REPLACED, 'replaced by a newer connection of the same worker');
    }
    this.announce(session.workerId);
  }

  /** Forgets a closed connection; true when it was the worker's current one (its work must be taken back). */
  async detach(session: WorkerSession): Promise<boolean> {
    if (this.sessions.get(session.workerId) !== session) return false;
    this.sessions.delete(session.workerId);
    await this.db.worker.updateMany({ where: { id: session.workerId }, data: { status: 'offline' } });
    this.announce(session.workerId);
    return true;
  }

  async heartbeat(session: WorkerSession): Promise<void> {
    session.lastSeenAt = Date.now();
    if (this.sessions.get(session.workerId) !== session) return;
    await this.db.worker.updateMany({
      where: { id: session.workerId },
      data: { last_seen_at: new Date(session.lastSeenAt), status: 'online' },
    });
  }

  get(workerId: string): WorkerSession | undefined {
    return this.sessions.get(workerId);
  }

  /** A connected worker by id or by name. */
  find(idOrName: string): WorkerSession | undefined {
    return this.sessions.get(idOrName) ?? [...this.sessions.values()].find((s) => s.name === idOrName);
  }

  connected(): WorkerSession[] {
    return [...this.sessions.values()];
  }

  /** The connected workers that have not heart-beaten for `offlineAfterMs`. */
  silent(offlineAfterMs: number, now = Date.now()): WorkerSession[] {
    return this.connected().filter((s) => now - s.lastSeenAt > offlineAfterMs);
  }

  /**
   * Marks offline the workers the database still calls online but that nobody has heard from for
   * `offlineAfterMs` (they were connected to a server that stopped); returns their ids.
   */
  async markSilentOffline(offlineAfterMs: number): Promise<string[]> {
    const cutoff = new Date(Date.now() - offlineAfterMs);
    const stale = await this.db.worker.findMany({
      where: { status: 'online', last_seen_at: { lt: cutoff } },
      select: { id: true },
    });
    const ids = stale.map((w) => w.id).filter((id) => !this.sessions.has(id));
    if (ids.length === 0) return [];
    await this.db.worker.updateMany({
      where: { id: { in: ids }, status: 'online', last_seen_at: { lt: cutoff } },
      data: { status: 'offline' },
    });
    for (const id of ids) this.announce(id);
    return ids;
  }

  /** Workers whose rows say offline: their unfinished workflows belong back in the queue. */
  async offlineIds(): Promise<string[]> {
    const rows = await this.db.worker.findMany({ where: { status: 'offline' }, select: { id: true } });
    return rows.map((r) => r.id);
  }

  /** Broadcasts the worker's current row as `worker_status` (best effort, never throws). */
  announce(workerId: string): void {
    this.background.run(
      presentWorkerById(this.db, workerId).then((worker) => {
        if (worker) this.events.publishGlobalEvent('worker_status', worker);
      }),
    );
  }
}
