import type { Db } from '@svc/db';
import type { Worker } from '@svc/protocol';
import { unfinishedWhere } from '../workflows';
import { presentWorker } from '../wire/worker';

/** How many unfinished workflows each worker holds now (`active` of GET /workers, free capacity). */
export async function activeCounts(db: Db, workerIds?: readonly string[]): Promise<Map<string, number>> {
  const groups = await db.workflow.groupBy({
    by: ['assigned_worker_id'],
    where: { ...unfinishedWhere, assigned_worker_id: workerIds ? { in: [...workerIds] } : { not: null } },
    _count: { _all: true },
  });
  return new Map(
    groups.filter((g) => g.assigned_worker_id !== null).map((g) => [g.assigned_worker_id!, g._count._all]),
  );
}

/** GET /workers: every worker that ever registered, by name. */
export async function listWorkers(db: Db): Promise<Worker[]> {
  const [rows, counts] = await Promise.all([db.worker.findMany({ orderBy: { name: 'asc' } }), activeCounts(db)]);
  return rows.map((row) => presentWorker(row, counts.get(row.id) ?? 0));
}

export async function presentWorkerById(db: Db, workerId: string): Promise<Worker | null> {
  const row = await db.worker.findUnique({ where: { id: workerId } });
  if (!row) return null;
  const counts = await activeCounts(db, [workerId]);
  return presentWorker(row, counts.get(workerId) ?? 0);
}
