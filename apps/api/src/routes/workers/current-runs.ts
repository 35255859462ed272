import type { Db, Prisma } from '@svc/db';
import type { WorkerRun, WorkflowStatus } from '@svc/protocol';
import type { Principal } from '../../auth/principal';
import { unfinishedWhere } from '../../workflows';

/**
 * The projects whose runs the caller may see, as a workflow filter (the same rule as canSeeProject); a
 * worker sees its own runs; null: none.
 */
export function visibleRunsWhere(principal: Principal): Prisma.WorkflowWhereInput | null {
  switch (principal.kind) {
    case 'worker':
      return {
        OR: [
          { assigned_worker_id: { in: [...principal.workerIds] } },
          { last_worker_id: { in: [...principal.workerIds] } },
        ],
      };
    case 'job':
      return null;
    case 'user': {
      const narrowed: Prisma.WorkflowWhereInput = principal.projectId ? { project_id: principal.projectId } : {};
      if (principal.isAdmin) return narrowed;
      return { ...narrowed, project: { members: { some: { user_id: principal.user.id } } } };
    }
  }
}

/** What each worker runs now, by worker id: only unfinished runs in live projects the caller can see. */
export async function currentRunsByWorker(db: Db, principal: Principal): Promise<Map<string, WorkerRun[]>> {
  const visible = visibleRunsWhere(principal);
  const byWorker = new Map<string, WorkerRun[]>();
  if (!visible) return byWorker;
  const rows = await db.workflow.findMany({
    where: {
      AND: [unfinishedWhere, visible, { assigned_worker_id: { not: null }, project: { deleted_at: null } }],
    },
    select: { id: true, project_id: true, number: true, title: true, status: true, assigned_worker_id: true },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
  });
  for (const row of rows) {
    const runs = byWorker.get(row.assigned_worker_id!) ?? [];
    runs.push({
      workflow_id: row.id,
      project_id: row.project_id,
      number: row.number,
      title: row.title,
      status: row.status as WorkflowStatus,
    });
    byWorker.set(row.assigned_worker_id!, runs);
  }
  return byWorker;
}
