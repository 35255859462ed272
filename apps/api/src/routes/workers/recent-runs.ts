import type { Db, Prisma } from '@svc/db';
import type { WorkerRunHistoryItem, WorkerRunPage, WorkflowStatus } from '@svc/protocol';
import type { Principal } from '../../auth/principal';
import { notFound } from '../../domain/errors';
import { newestFirstAfter, readPageQuery, TimeIdKeySchema, toPage } from '../../http/pagination';
import { runDurationMs } from '../../wire/workflow';
import { visibleRunsWhere } from './current-runs';

const ORDER = [{ created_at: 'desc' as const }, { id: 'desc' as const }];

const SELECT = {
  id: true,
  project_id: true,
  number: true,
  title: true,
  status: true,
  started_at: true,
  finished_at: true,
  error: true,
  created_at: true,
  project: { select: { name: true } },
} as const satisfies Prisma.WorkflowSelect;
type Row = Prisma.WorkflowGetPayload<{ select: typeof SELECT }>;

function present(row: Row): WorkerRunHistoryItem {
  const { started_at, finished_at } = row;
  return {
    workflow_id: row.id,
    project_id: row.project_id,
    project_name: row.project.name,
    number: row.number,
    title: row.title,
    status: row.status as WorkflowStatus,
    started_at: started_at?.toISOString() ?? null,
    finished_at: finished_at?.toISOString() ?? null,
    duration_ms: runDurationMs(row),
    error: row.error,
  };
}

/**
 * `GET /workers/{id}/runs` (decision 0078): the runs whose last worker is this one, held now or finished,
 * newest first by creation (a key that does not move while paging), walking `(last_worker_id, created_at,
 * id)`; only live runs in live projects the caller can see.
 */
export async function workerRunsPage(
  db: Db,
  principal: Principal,
  workerId: string,
  query: unknown,
): Promise<WorkerRunPage> {
  const { limit, after } = readPageQuery(query, TimeIdKeySchema);
  const worker = await db.worker.findUnique({ where: { id: workerId }, select: { id: true } });
  if (!worker) throw notFound('worker not found');
  const visible = visibleRunsWhere(principal);
  if (!visible) return { items: [], next_cursor: null };
  const where: Prisma.WorkflowWhereInput = {
    AND: [
      { last_worker_id: workerId, deleted_at: null, project: { deleted_at: null } },
      visible,
      ...(after ? [newestFirstAfter('created_at', new Date(after[0]), after[1])] : []),
    ],
  };
  const rows = await db.workflow.findMany({ where, select: SELECT, orderBy: ORDER, take: limit + 1 });
  return toPage(rows, limit, (row) => [row.created_at.toISOString(), row.id], present);
}
