import type { Db } from '@svc/db';
import type { IngestLock } from '../ingest/ingest-lock';
import { unfinishedWhere, type WorkflowTransitions } from '../workflows';
import { DISPATCH_SELECT } from './message';

/**
 * The database is the queue: a workflow is queued while it is unfinished, in a live project, held by
 * no worker and has no pending timer. Claims and hand-backs are conditional UPDATEs, so two server
 * paths never give one workflow to two workers.
 */
export const queuedWhere = {
  assigned_worker_id: null,
  ...unfinishedWhere,
  project: { deleted_at: null },
  timers: { none: { status: 'pending' } },
} as const;

export const QUEUE_PAGE = 100;

/** Who holds which workflow changed: caches of that (the update ingest's) must read it again. */
export interface AssignmentCache {
  forget(workflowIds: Iterable<string>): void;
}

export interface QueueDeps {
  db: Db;
  lock: IngestLock;
  transitions: WorkflowTransitions;
  assignments: AssignmentCache;
}

/** The oldest queued workflows. */
export function queuedPage(db: Db) {
  return db.workflow.findMany({
    where: queuedWhere,
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
    take: QUEUE_PAGE,
    select: { ...DISPATCH_SELECT, requested_worker_id: true },
  });
}

/** Gives a queued workflow to a worker; false when someone else got it first (or it left the queue). */
export async function claim(db: Db, workflowId: string, workerId: string): Promise<boolean> {
  const { count } = await db.workflow.updateMany({
    where: { id: workflowId, assigned_worker_id: null, ...unfinishedWhere, timers: { none: { status: 'pending' } } },
    data: { assigned_worker_id: workerId },
  });
  return count === 1;
}

/** Takes a claim back (the dispatch could not be sent). Under the ingest lock, like every hand-back. */
export async function unclaim(deps: QueueDeps, workflowId: string, workerId: string): Promise<void> {
  await deps.lock.exclusive(async () => {
    await deps.db.workflow.updateMany({
      where: { id: workflowId, assigned_worker_id: workerId },
      data: { assigned_worker_id: null },
    });
    deps.assignments.forget([workflowId]);
  });
}

/**
 * Puts the worker's unfinished workflows (or just `only`) back in the queue (see
 * WorkflowTransitions.requeueFromWorker). Runs under the ingest lock, so an update is either stored
 * before the hand-back or refused after it. Returns the ids.
 */
export async function takeBack(
  deps: QueueDeps,
  workerId: string,
  only: readonly string[] | undefined,
): Promise<string[]> {
  const taken = await deps.lock.exclusive(async () => {
    const rows = await deps.transitions.requeueFromWorker(workerId, only);
    deps.assignments.forget(rows.map((r) => r.id));
    return rows;
  });
  await deps.transitions.publishRequeued(taken);
  return taken.map((r) => r.id);
}
