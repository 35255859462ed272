import {
  isAnyOf,
  queryBuilder,
  rowDecoder,
  selectRows,
  sql,
  type Db,
  type DbProvider,
  type SqlReader,
  type Workflow,
} from '@svc/db';
import { TERMINAL_WORKFLOW_STATUSES } from '@svc/protocol';
import { dispatchableRows } from '../engine/claim';
import type { WorkflowEngine } from '../engine';
import type { IngestLock } from '../ingest/ingest-lock';
import { unfinishedWhere } from '../workflows';
import { DISPATCH_SELECT } from './message';

/**
 * The database is the queue: a workflow is queued while it is unfinished and not paused (a paused one
 * waits for a member's resume), in a live project, held by no worker and has no pending timer. Claims and hand-backs are conditional UPDATEs (the engine's), so
 * two server paths never give one workflow to two workers.
 */
export const queuedWhere = {
  assigned_worker_id: null,
  ...unfinishedWhere,
  status: { notIn: [...TERMINAL_WORKFLOW_STATUSES, 'paused'] as string[] },
  project: { deleted_at: null },
  timers: { none: { status: 'pending' } },
} as const;

export const QUEUE_PAGE = 100;

export interface QueueDeps {
  engine: WorkflowEngine;
  lock: IngestLock;
}

const QUEUED_SELECT = { ...DISPATCH_SELECT, requested_worker_id: true, created_at: true, started_at: true } as const;
/** A queued run as the dispatcher's round reads it. */
export type QueuedRow = { [K in keyof typeof QUEUED_SELECT]: Workflow[K] } & {
  /** its claims count against others' (a project limit or a concurrency key): claimed under the lock */
  contended: boolean;
};
const QUEUED_COLUMNS = Object.keys(QUEUED_SELECT);
const queuedRow = {
  postgresql: rowDecoder('postgresql', 'workflows'),
  sqlite: rowDecoder('sqlite', 'workflows', { contended: 'boolean' }),
};

/**
 * The first queued workflows in dispatch order (priority, then oldest first) that their project's
 * `max_running` and their concurrency key let go now (engine/claim.ts; the claim checks again): one
 * statement on the driver a round.
 */
export async function queuedPage(reader: SqlReader, provider: DbProvider): Promise<QueuedRow[]> {
  const rows = await dispatchableRows(reader, provider, QUEUED_COLUMNS, QUEUE_PAGE);
  return rows.map((row) => queuedRow[provider]<QueuedRow>(row));
}

/**
 * Of these connected workers, those an administrator has not paused, with how many unfinished runs each
 * holds now: one statement per dispatch round (the pause is a column, so every replica reads it here).
 */
export async function workerRoom(db: Db, provider: DbProvider, workerIds: readonly string[]) {
  if (workerIds.length === 0) return new Map<string, number>();
  const rows = await selectRows<{ id: string; active: number | bigint | string }>(
    db,
    provider,
    queryBuilder(provider)
      .selectFrom('workers as w')
      .select((eb) => [
        'w.id',
        eb
          .selectFrom('workflows as f')
          .select(sql<number>`COUNT(*)`.as('n'))
          .whereRef('f.assigned_worker_id', '=', 'w.id')
          .where('f.deleted_at', 'is', null)
          .where('f.status', 'not in', [...TERMINAL_WORKFLOW_STATUSES])
          .as('active'),
      ])
      .where('w.paused_at', 'is', null)
      .where(({ ref }) => isAnyOf(provider, ref('w.id'), workerIds)),
  );
  return new Map(rows.map((row) => [row.id, Number(row.active)]));
}

/** The unfinished runs a worker holds by the database: its first heartbeat settles them (one statement, on the driver). */
export async function assignedRuns(reader: SqlReader, provider: DbProvider, workerId: string): Promise<string[]> {
  const rows = (await reader.rows(
    queryBuilder(provider)
      .selectFrom('workflows')
      .select('id')
      .where('assigned_worker_id', '=', workerId)
      .where('deleted_at', 'is', null)
      .where('status', 'not in', [...TERMINAL_WORKFLOW_STATUSES]),
  )) as { id: string }[];
  return rows.map((row) => row.id);
}

/** Takes a claim back (the dispatch could not be sent). Under the ingest lock, like every hand-back. */
export async function unclaim(deps: QueueDeps, workflowId: string, workerId: string): Promise<void> {
  await deps.lock.exclusive(() => deps.engine.unclaim(workflowId, workerId));
}

/**
 * Puts the worker's unfinished workflows (or just `only`) back in the queue (see
 * WorkflowEngine.leaseExpired). Runs under the ingest lock, so an update is either stored before the
 * hand-back or refused after it. Returns the ids.
 */
export function takeBack(deps: QueueDeps, workerId: string, only: readonly string[] | undefined): Promise<string[]> {
  return deps.lock.exclusive(() => deps.engine.leaseExpired(workerId, only));
}
