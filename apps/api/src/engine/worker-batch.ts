import type { Prisma } from '@svc/db';
import type { EventStore, RawClient, TableRows } from '../events';
import type { EngineBus, EngineEvents } from './bus';
import { isFinished } from './state-machine';
import { reportableFrom, type RunChanges } from './worker-updates';

/** One batch of worker updates: each run's changes, the rows of every kind, when it happened. */
export interface WorkerBatch {
  runs: RunChanges[];
  tables: TableRows[];
  at: Date;
  /** what plain progress batches are written through (a PostgreSQL lane); the database by default */
  client?: RawClient;
}

/**
 * Stores a batch atomically through the event store: status changes (conditional) and other column
 * changes first, then the counters, the rows of every kind and the events (one statement on
 * PostgreSQL, so a batch of plain progress updates needs no interactive transaction there). The events
 * are published with the commit; the changes are announced on `bus` after it.
 */
export async function commitWorkerBatch(events: EventStore, bus: EngineBus, batch: WorkerBatch): Promise<void> {
  const runs = batch.runs.filter((r) => r.maxSeq > 0);
  const plain = runs.every((r) => !r.statusPatch && Object.keys(r.patch).length === 0);
  await events.appendWith(
    async (tx) => {
      for (const run of tx ? runs : []) await writeColumns(tx!, run, batch.at);
      return {
        groups: runs.map((r) => ({ workflow: r.row, events: r.events, maxUpdateSeq: r.maxSeq })),
        tables: batch.tables,
        at: batch.at,
      };
    },
    { interactive: !plain, client: batch.client },
  );
  for (const run of runs) announce(bus, run);
}

async function writeColumns(tx: Prisma.TransactionClient, run: RunChanges, at: Date): Promise<void> {
  if (run.statusPatch && !(await writeReportedStatus(tx, run.row.id, run.statusPatch, at))) run.statusRefused();
  if (Object.keys(run.patch).length > 0)
    await tx.workflow.update({ where: { id: run.row.id }, data: run.patch, select: { id: true } });
}

/** The reported status, only from a status the table moves it from (a cancel in between wins). */
async function writeReportedStatus(
  tx: Prisma.TransactionClient,
  workflowId: string,
  patch: NonNullable<RunChanges['statusPatch']>,
  at: Date,
): Promise<boolean> {
  const from = reportableFrom(patch.status, patch.question as string | null);
  const { count } = await tx.workflow.updateMany({
    where: { id: workflowId, deleted_at: null, status: { in: from } },
    data: { ...patch, finished_at: isFinished(patch.status) ? at : null },
  });
  if (count === 1 && patch.status !== 'pending') {
    // The first time a worker reports it working (or finished): started_at is kept after that.
    await tx.workflow.updateMany({ where: { id: workflowId, started_at: null }, data: { started_at: at } });
  }
  return count === 1;
}

/** A status change may have given the run back, a title ends a title job: caches read the row again. */
function announce(bus: EngineBus, run: RunChanges): void {
  if (run.statusPatch !== null || run.released !== null || run.titleStored)
    bus.emit('stale', { workflowIds: [run.row.id] });
  if (!run.listChanged && !run.released) return;
  bus.emit('transitioned', {
    workflow: run.row,
    cause: run.statusPatch ? 'worker_reported' : 'title_reported',
    status: run.statusPatch?.status ?? null,
    publish: [],
    listChanged: run.listChanged,
    ...releasedBy(run),
  });
}

/** Who stopped holding the run with a worker batch (the dispatcher gives the worker room again). */
function releasedBy(run: RunChanges): Pick<EngineEvents['transitioned'], 'released'> {
  if (!run.released || !run.releasedBy) return {};
  return { released: { by: run.releasedBy, finished: run.released === 'finished' } };
}
