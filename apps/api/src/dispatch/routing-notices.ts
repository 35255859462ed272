import type { Logger } from 'pino';
import { prepare, queryBuilder, type Db, type DbProvider, type Prepared, type SqlReader } from '@svc/db';
import type { EventStore } from '../events';
import { CoalescedRuns } from '../lib/coalesced-runs';
import { queuedWhere } from './queue';
import { queuedLabelSets } from '../engine/claim';
import { decodeRequires, labelsOf, satisfies, unroutableReason } from '../domain/routing';

export interface RoutingNoticesDeps {
  db: Db;
  /** each refresh's two reads (a refresh follows every create) */
  reader: SqlReader;
  provider: DbProvider;
  events: EventStore;
  logger: Logger;
}

/** The label sets (stored form) of queued runs that no online worker satisfies (no worker is read while none requires a label). */
async function unroutableSets(deps: RoutingNoticesDeps): Promise<Set<string>> {
  const sets = await queuedLabelSets(deps.reader, deps.provider);
  if (sets.length === 0) return new Set();
  const workers = await deps.db.worker.findMany({ where: { status: 'online' }, select: { labels: true } });
  const online = workers.map((w) => labelsOf(w.labels));
  return new Set(sets.filter((stored) => !online.some((labels) => satisfies(labels, decodeRequires(stored)))));
}

interface NotedRun {
  id: string;
  project_id: string;
  requires: string;
  assigned_worker_id: string | null;
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

  /** The runs whose notice is set. */
  private readonly noted: Prepared<Record<string, never>>;

  constructor(private readonly deps: RoutingNoticesDeps) {
    this.noted = prepare(deps.provider, () =>
      queryBuilder(deps.provider)
        .selectFrom('workflows')
        .select(['id', 'project_id', 'requires', 'assigned_worker_id'])
        .where('waiting_reason', 'is not', null),
    );
  }

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
    const unroutable = await unroutableSets(this.deps);
    const stranded =
      unroutable.size === 0
        ? []
        : await db.workflow.findMany({
            where: { ...queuedWhere, requires: { in: [...unroutable] }, waiting_reason: null },
            select: { id: true, project_id: true, requires: true },
          });
    for (const run of stranded) await this.announce(run, unroutableReason(decodeRequires(run.requires)));
    const noted = (await this.deps.reader.rows(this.noted.bind({}))) as NotedRun[];
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
