import { executeQuery, queryBuilder, sql, type DbProvider } from '@svc/db';
import type { EventBatch, EventStore, RawClient, TableRows } from '../events';
import type { EngineBus, EngineEvents } from './bus';
import { isFinished } from './state-machine';
import { NO_STEERING } from './intents';
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
 * PostgreSQL, so a batch of plain progress updates needs no transaction there; the others are raw
 * statements in a raw transaction). The events are published with the commit; the changes are
 * announced on `bus` after it.
 */
export async function commitWorkerBatch(
  events: EventStore,
  bus: EngineBus,
  provider: DbProvider,
  batch: WorkerBatch,
): Promise<void> {
  const runs = batch.runs.filter((r) => r.maxSeq > 0);
  const plain = runs.every((r) => !r.statusPatch && Object.keys(r.patch).length === 0);
  const appended = async (): Promise<EventBatch> => ({
    groups: runs.map((r) => ({ workflow: r.row, events: r.events, maxUpdateSeq: r.maxSeq })),
    tables: batch.tables,
    at: batch.at,
  });
  if (plain) await events.appendWith(appended, { interactive: false, client: batch.client });
  else
    await events.appendInRawTransaction(async (tx) => {
      for (const run of runs) await writeColumns(tx, provider, run, batch.at);
      return appended();
    });
  for (const run of runs) announce(bus, run);
}

async function writeColumns(tx: RawClient, provider: DbProvider, run: RunChanges, at: Date): Promise<void> {
  if (run.statusPatch && !(await writeReportedStatus(tx, provider, run.row.id, run.statusPatch, at)))
    run.statusRefused();
  if (Object.keys(run.patch).length === 0) return;
  const statement = queryBuilder(provider)
    .updateTable('workflows')
    .set({ ...run.patch, updated_at: at })
    .where('id', '=', run.row.id);
  await executeQuery(tx, provider, statement);
}

/**
 * The reported status, only from a status the table moves it from (a cancel in between wins), in one
 * statement: the first report of the run working (or finished) stamps `started_at`, kept after that; a
 * final status clears the steering.
 */
async function writeReportedStatus(
  tx: RawClient,
  provider: DbProvider,
  workflowId: string,
  patch: NonNullable<RunChanges['statusPatch']>,
  at: Date,
): Promise<boolean> {
  const finished = isFinished(patch.status);
  const statement = queryBuilder(provider)
    .updateTable('workflows')
    .set({
      ...patch,
      finished_at: finished ? at : null,
      updated_at: at,
      ...(patch.status === 'pending' ? {} : { started_at: sql<Date>`COALESCE(started_at, ${at})` }),
      ...(finished ? NO_STEERING : {}),
    })
    .where('id', '=', workflowId)
    .where('deleted_at', 'is', null)
    .where('status', 'in', reportableFrom(patch.status, patch.question));
  return (await executeQuery(tx, provider, statement)) === 1;
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
