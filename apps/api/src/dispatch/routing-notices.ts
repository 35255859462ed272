import type { Logger } from 'pino';
import type { Db } from '@svc/db';
import type { EventStore } from '../events';
import { CoalescedRuns } from '../lib/coalesced-runs';
import { queuedWhere } from './queue';
import { decodeRequires, labelsOf, satisfies, unroutableReason } from '../domain/routing';

export interface RoutingNoticesDeps {
  db: Db;
  events: EventStore;
  logger: Logger;
}

/** The label sets (stored form) of queued runs that no online worker satisfies. */
export async function unroutableSets(db: Db): Promise<Set<string>> {
  const [groups, workers] = await Promise.all([
    db.workflow.groupBy({ by: ['requires'], where: { ...queuedWhere, NOT: { requires: '[]' } } }),
    db.worker.findMany({ where: { status: 'online' }, select: { labels: true } }),
  ]);
  const online = workers.map((w) => labelsOf(w.labels));
  return new Set(
    groups
      .map((g) => g.requires)
      .filter((stored) => !online.some((labels) => satisfies(labels, decodeRequires(stored)))),
  );
}

/**
 * Keeps `waiting_reason` of queued runs true: set (with a `workflow_routing` event, once) while no online
 * worker has a run's labels, cleared (with its event) once one has or the run left the queue. The
 * workers table is the truth every replica reads, so any replica may refresh; the conditional updates
 * make two replicas refreshing at once announce each change once. Concurrent calls coalesce.
 */
export class RoutingNotices {
  private closed = false;
  private readonly refreshes = new CoalescedRuns(
    () => this.refreshOnce(),
    () => this.closed,
  );

  constructor(private readonly deps: RoutingNoticesDeps) {}

  /** Refreshes in the background (a failure is logged). */
  kick(): void {
    if (this.closed) return;
    this.refresh().catch((err: unknown) => this.deps.logger.error({ err }, 'routing notice refresh failed'));
  }

  refresh(): Promise<void> {
    return this.refreshes.run();
  }

  /** No refresh starts any more; waits for the one under way. */
  async close(): Promise<void> {
    this.closed = true;
    await this.refreshes.settled();
  }

  private async refreshOnce(): Promise<void> {
    const { db } = this.deps;
    const unroutable = await unroutableSets(db);
    const stranded = await db.workflow.findMany({
      where: { ...queuedWhere, requires: { in: [...unroutable] }, waiting_reason: null },
      select: { id: true, project_id: true, requires: true },
    });
    for (const run of stranded) await this.announce(run, unroutableReason(decodeRequires(run.requires)));
    const noted = await db.workflow.findMany({
      where: { waiting_reason: { not: null } },
      select: { id: true, project_id: true, requires: true, assigned_worker_id: true },
    });
    const cleared = noted.filter((run) => run.assigned_worker_id !== null || !unroutable.has(run.requires));
    for (const run of cleared) await this.announce(run, null);
  }

  /** Sets or clears the notice when it is not so already, and tells the run's subscribers. */
  private async announce(
    run: { id: string; project_id: string; requires: string },
    reason: string | null,
  ): Promise<void> {
    const { count } = await this.deps.db.workflow.updateMany({
      where: { id: run.id, waiting_reason: reason === null ? { not: null } : null },
      data: { waiting_reason: reason },
    });
    if (count === 0) return;
    await this.deps.events.append(run, [
      { type: 'workflow_routing', data: { requires: decodeRequires(run.requires), waiting_reason: reason } },
    ]);
  }
}
