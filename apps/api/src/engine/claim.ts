import {
  autocommitClient,
  executeQuery,
  queryBuilder,
  rawTransaction,
  sql,
  type Db,
  type DbProvider,
  type SqlReader,
  type Statement,
} from '@svc/db';
import type pg from 'pg';
import { UNFINISHED } from './state-machine';
import { NO_LABELS } from '../domain/routing';

/**
 * The claim of a queued run, with the concurrency rules in the same UPDATE (decision 0037): a run
 * "holds a slot" while it is unfinished and assigned to a worker. The run is claimed only if
 * - it is still queued (no worker, unfinished, not deleted, no pending timer);
 * - its project holds fewer than `max_running` slots (null: no limit);
 * - with a `concurrency_key`, no other unfinished run with that key holds a slot or was created before
 *   it (FIFO per key: the key's oldest unfinished run goes first, a later one waits even if slots are free).
 *
 * SQLite runs one write statement at a time, so the counts in the statement hold when it writes. On
 * PostgreSQL (READ COMMITTED, any number of replicas) the claims of one project are serialized by a
 * transaction-scoped advisory lock taken first: the UPDATE's snapshot is taken after the lock, so it sees
 * every claim committed before it. A run without a key in a project without a limit has no count to
 * protect: it is claimed in one statement without the lock (decision 0092).
 */

/** The advisory lock namespace of claims (the first key of pg_advisory_xact_lock(int, int)). */
const CLAIM_LOCK_SPACE = 23_0037;

const unfinished = sql.join(UNFINISHED.map((status) => sql.lit(status)));
/** A paused run waits for a member's resume, never for a worker (decision 0039). */
const queueable = sql.join(UNFINISHED.filter((status) => status !== 'paused').map((status) => sql.lit(status)));

/** Unfinished, not deleted and held by a worker: the runs that hold a slot. */
const holdsSlot = (alias: string) =>
  sql`${sql.ref(`${alias}.assigned_worker_id`)} IS NOT NULL AND ${sql.ref(`${alias}.deleted_at`)} IS NULL AND ${sql.ref(`${alias}.status`)} IN (${unfinished})`;

const projectLimit = sql`(SELECT p.max_running FROM projects AS p WHERE p.id = workflows.project_id)`;

/** The project is under its limit (or has none). */
const underLimit = sql`(${projectLimit} IS NULL OR (SELECT COUNT(*) FROM workflows AS o WHERE o.project_id = workflows.project_id AND ${holdsSlot('o')}) < ${projectLimit})`;

/** No run of the same key runs, and none older waits. */
const firstOfKey = sql`(workflows.concurrency_key IS NULL OR NOT EXISTS (SELECT 1 FROM workflows AS k WHERE k.project_id = workflows.project_id AND k.concurrency_key = workflows.concurrency_key AND k.id <> workflows.id AND k.deleted_at IS NULL AND k.status IN (${unfinished}) AND (k.assigned_worker_id IS NOT NULL OR k.created_at < workflows.created_at OR (k.created_at = workflows.created_at AND k.id < workflows.id))))`;

const noPendingTimer = sql`NOT EXISTS (SELECT 1 FROM timers AS t WHERE t.workflow_id = workflows.id AND t.status = 'pending')`;

/** Queued: no worker, unfinished, not deleted, no pending timer. */
const queued = sql`workflows.assigned_worker_id IS NULL AND workflows.deleted_at IS NULL AND workflows.status IN (${queueable}) AND ${noPendingTimer}`;

/** Queued and allowed by its project and key now. */
const dispatchable = sql`${queued} AND ${underLimit} AND ${firstOfKey}`;

/** The runs of live projects (the queue leaves out the runs of deleted ones). */
const inLiveProjects = sql`workflows JOIN projects AS live ON live.id = workflows.project_id AND live.deleted_at IS NULL`;

function compiled(provider: DbProvider, statement: ReturnType<typeof sql>): Statement {
  const { sql: text, parameters } = statement.compile(queryBuilder(provider));
  return { sql: text, values: [...parameters] };
}

/** Whether claims of the run are counted against others: its project has a limit or it has a key. */
const contended = sql`(live.max_running IS NOT NULL OR workflows.concurrency_key IS NOT NULL)`;

/** A run that counts against nothing: no key, and its project has no limit (decision 0092). */
const uncontended = sql`workflows.concurrency_key IS NULL AND ${projectLimit} IS NULL`;

/** The claim of the run for the worker, if `condition` holds for it in the statement's snapshot. */
const claimWhere = (provider: DbProvider, workflowId: string, workerId: string, condition: ReturnType<typeof sql>) =>
  compiled(
    provider,
    // last_worker_id stays when the run is released: a worker's runs list finds it (decision 0078).
    sql`UPDATE workflows SET assigned_worker_id = ${workerId}, last_worker_id = ${workerId} WHERE id = ${workflowId} AND ${condition}`,
  );

/**
 * The runs a claim would take now, in dispatch order: priority (higher first), then oldest first; the
 * `columns` of each, as the driver returns them, and `contended` (its claims count against others').
 * Runs of deleted projects are left out (as the queue leaves them out).
 */
export function dispatchableRows(
  reader: SqlReader,
  provider: DbProvider,
  columns: readonly string[],
  limit: number,
): Promise<unknown[]> {
  const selected = sql.join(columns.map((column) => sql.ref(`workflows.${column}`)));
  return reader.rows(
    compiled(
      provider,
      sql`SELECT ${selected}, ${contended} AS contended FROM ${inLiveProjects} WHERE ${dispatchable} ORDER BY workflows.priority DESC, workflows.created_at, workflows.id LIMIT ${limit}`,
    ),
  );
}

/**
 * The label sets (stored form) of queued runs that require any, whatever their project's limits: the
 * sets routing notices check against the online workers (decision 0086: on the driver).
 */
export async function queuedLabelSets(reader: SqlReader, provider: DbProvider): Promise<string[]> {
  const rows = (await reader.rows(
    compiled(
      provider,
      sql`SELECT DISTINCT workflows.requires FROM ${inLiveProjects} WHERE ${queued} AND workflows.requires <> ${sql.lit(NO_LABELS)}`,
    ),
  )) as { requires: string }[];
  return rows.map((row) => row.requires);
}

/**
 * Claims the run for the worker; false when it is not queued or its project or key has no room.
 * `contended: false` (the queue's word, read a moment ago) tries the claim without the lock first; a
 * limit or key set since, or a lost race, falls back to the locked claim.
 */
export async function claimQueued(
  handle: { db: Db; pgPool: pg.Pool | null },
  provider: DbProvider,
  workflowId: string,
  workerId: string,
  contended = true,
): Promise<boolean> {
  const claim = (condition: ReturnType<typeof sql>) => claimWhere(provider, workflowId, workerId, condition);
  if (provider === 'sqlite') return (await executeQuery(handle.db, provider, claim(dispatchable))) === 1;
  if (!contended) {
    const claimed = await executeQuery(autocommitClient(handle), provider, claim(sql`${queued} AND ${uncontended}`));
    if (claimed === 1) return true;
  }
  return rawTransaction(handle, async (tx) => {
    // executeRaw: the lock function returns `void`, nothing to read.
    await tx.$executeRawUnsafe(
      'SELECT pg_advisory_xact_lock($1::int, hashtext(project_id)) FROM workflows WHERE id = $2',
      CLAIM_LOCK_SPACE,
      workflowId,
    );
    return (await executeQuery(tx, provider, claim(dispatchable))) === 1;
  });
}
