import type { Logger } from 'pino';
import type { Db } from '@svc/db';
import { unfinishedWhere } from '../workflows';
import type { LiveDispatcher } from './dispatcher';
import type { WorkerRegistry } from './registry';
import { WS_CLOSE_HEARTBEAT_MISSED } from './worker-session';

export interface LivenessDeps {
  db: Db;
  registry: WorkerRegistry;
  dispatcher: LiveDispatcher;
  logger: Logger;
  offlineAfterSeconds: number;
  /** How long a disconnected worker keeps its workflows; 0: they go back at once. */
  leaseSeconds: number;
  /**
   * Added to the lease before the work goes back: the worker fences its runs when its lease is up by
   * its own clock, so it stops starting commands before another worker may resume them (decision 0062).
   */
  leaseMarginSeconds?: number;
  now?: () => number;
  /** When this server started (ms); now by default. */
  startedAt?: number;
}

/**
 * Closes silent worker connections and takes work back from workers whose lease ran out: nobody has
 * heard of them for `leaseSeconds` plus `leaseMarginSeconds`, counted from the worker row's last_seen_at (so the lease survives
 * a server restart) but never from before this server started (a worker cannot reconnect to a server
 * that is down, so an outage of the server does not use up the lease).
 */
export class WorkerLiveness {
  private sweeper: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private readonly now: () => number;
  private readonly startedAt: number;

  constructor(private readonly deps: LivenessDeps) {
    this.now = deps.now ?? Date.now;
    this.startedAt = deps.startedAt ?? this.now();
  }

  start(): void {
    const every = Math.max(500, Math.min((this.deps.offlineAfterSeconds * 1000) / 2, 5000));
    this.sweeper = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = this.sweep()
        .catch((err: unknown) => this.deps.logger.error({ err }, 'worker liveness sweep failed'))
        .finally(() => (this.sweeping = null));
    }, every);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.sweeping;
  }

  async sweep(): Promise<void> {
    const { db, registry, dispatcher, logger, offlineAfterSeconds } = this.deps;
    const offlineAfterMs = offlineAfterSeconds * 1000;
    // A live worker's row is at most a sixth of the offline limit plus one sweep (half of it at most)
    // behind, so no other replica takes it for silent; one statement, not one per heartbeat.
    await registry.persistHeartbeats(offlineAfterMs / 6);
    for (const session of registry.silent(offlineAfterMs)) {
      logger.warn({ worker: session.name }, 'worker missed its heartbeats; closing its connection');
      session.close(WS_CLOSE_HEARTBEAT_MISSED, `no heartbeat for ${offlineAfterSeconds}s`);
    }
    await registry.markSilentOffline(offlineAfterMs);
    // A wake-up lost on the bus (a reconnect gap) delays a hand-out until here at most.
    dispatcher.kick();
    const heardBefore = this.now() - (this.deps.leaseSeconds + (this.deps.leaseMarginSeconds ?? 0)) * 1000;
    if (this.startedAt > heardBefore) return;
    const offline = await registry.leaseExpiredIds(new Date(heardBefore));
    if (offline.length === 0) return;
    const stranded = await db.workflow.findMany({
      where: { ...unfinishedWhere, assigned_worker_id: { in: offline } },
      select: { assigned_worker_id: true },
      distinct: ['assigned_worker_id'],
    });
    for (const { assigned_worker_id } of stranded) {
      if (!assigned_worker_id || registry.get(assigned_worker_id)) continue;
      logger.warn({ workerId: assigned_worker_id }, 'worker lease ran out; its workflows go back to the queue');
      await dispatcher.takeBack(assigned_worker_id);
    }
  }
}
