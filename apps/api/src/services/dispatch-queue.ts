import type { Db } from '@svc/db';
import type { EventBus } from './events';
import type { IngestLock } from './dispatch-lock';
import { DISPATCH_SELECT } from './dispatch-message';
import { unfinishedWhere } from './worker-registry-list';

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
export async function unclaim(
  db: Db,
  lock: IngestLock,
  workflowId: string,
  workerId: string,
  reassigned: (ids: string[]) => void,
): Promise<void> {
  await lock.exclusive(async () => {
    await db.workflow.updateMany({
      where: { id: workflowId, assigned_worker_id: workerId },
      data: { assigned_worker_id: null },
    });
    reassigned([workflowId]);
  });
}

/**
 * Puts the worker's unfinished workflows (or just `only`) back in the queue: `pending`, or still
 * `waiting_user` so the user can answer before another worker resumes it. Runs under the ingest lock;
 * conditional on the status too, so a workflow cancelled meanwhile stays cancelled. Returns the ids.
 */
export async function takeBack(
  deps: { db: Db; events: EventBus; lock: IngestLock },
  workerId: string,
  only: readonly string[] | undefined,
  reassigned: (ids: string[]) => void,
): Promise<string[]> {
  const { db, events, lock } = deps;
  const taken = await lock.exclusive(async () => {
    const rows = await db.workflow.findMany({
      where: { assigned_worker_id: workerId, ...unfinishedWhere, ...(only ? { id: { in: [...only] } } : {}) },
      select: { id: true, project_id: true, status: true },
    });
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    await db.workflow.updateMany({
      where: { id: { in: ids }, assigned_worker_id: workerId, status: 'waiting_user' },
      data: { assigned_worker_id: null },
    });
    await db.workflow.updateMany({
      where: { id: { in: ids }, assigned_worker_id: workerId, ...unfinishedWhere },
      data: { assigned_worker_id: null, status: 'pending' },
    });
    reassigned(ids);
    return rows;
  });
  for (const row of taken) {
    if (row.status === 'waiting_user' || row.status === 'pending') continue;
    await events.publishWorkflowEvent(row, 'workflow_status', { status: 'pending' });
    events.publishProjectEvent(row.project_id, 'project_changed', { change: 'workflow_updated', workflow_id: row.id });
  }
  return taken.map((r) => r.id);
}
