import { executeQuery, queryBuilder, type Db, type DbProvider, type RawClient } from '@svc/db';
import type { UpdateMessage } from '@svc/protocol';
import { UNFINISHED } from './state-machine';

/**
 * Steering that waits for a worker, stored on the workflow row (never only in one replica's memory):
 * an answer, feedback, a member's pause or resume of a paused run (`unpause`), or a resume with a fired
 * timer's reason, carried by the next message to the
 * worker that runs it or by the next dispatch; and a title job's seq block. Written only through the
 * engine (WorkflowEngine's intent methods).
 */
export type SteerAction = 'answer' | 'feedback' | 'resume' | 'pause' | 'unpause';

const STEER_ACTIONS: readonly string[] = ['answer', 'feedback', 'resume', 'pause', 'unpause'] satisfies SteerAction[];

export interface Intent {
  action: SteerAction;
  message: string;
}

/**
 * Seqs a title job may use (its LLM call attempts, then the title): the worker that runs the workflow
 * numbers its updates after them, so the two never collide.
 */
export const TITLE_SEQ_BLOCK = 16;

export const STEERING_SELECT = { steer_action: true, steer_message: true, title_last_seq: true } as const;

export function intentOf(row: { steer_action: string | null; steer_message: string | null }): Intent | null {
  if (row.steer_action === null || !STEER_ACTIONS.includes(row.steer_action)) return null;
  return { action: row.steer_action as SteerAction, message: row.steer_message ?? '' };
}

/** Stores the intent of an unfinished workflow (replacing one not yet delivered, unless `keep`). */
export async function recordIntent(db: Db, workflowId: string, intent: Intent, keep = false): Promise<void> {
  await db.workflow.updateMany({
    where: {
      id: workflowId,
      status: { in: [...UNFINISHED] },
      deleted_at: null,
      ...(keep ? { steer_action: null } : {}),
    },
    data: { steer_action: intent.action, steer_message: intent.message },
  });
}

/** The intent was handed to a worker: cleared unless a newer one replaced it meanwhile. */
export async function clearIntent(db: Db, workflowId: string, intent: Intent): Promise<void> {
  await db.workflow.updateMany({
    where: { id: workflowId, steer_action: intent.action, steer_message: intent.message },
    data: { steer_action: null, steer_message: null },
  });
}

/** What nothing waiting for a worker leaves on the row (a retry starts from the snapshot). */
export const NO_STEERING = {
  steer_action: null,
  steer_message: null,
  title_worker_id: null,
  title_first_seq: null,
  title_last_seq: null,
} as const;

/** Cancelled: nothing waits for a worker any more. */
export async function clearSteering(db: Db, workflowId: string): Promise<void> {
  await db.workflow.updateMany({ where: { id: workflowId }, data: NO_STEERING });
}

/**
 * Grants `workerId` a title job's seq block, after both the stored seqs and any earlier block. Only
 * while nobody holds the workflow, and only if nothing changed since `seen` was read: a worker that
 * claims it afterwards reads the block and numbers after it; one that claimed first makes the title
 * itself. Returns the block, or null when another replica or a claim came first.
 */
export async function grantTitle(
  client: RawClient,
  provider: DbProvider,
  seen: { id: string; last_update_seq: number; title_last_seq: number | null },
  workerId: string,
): Promise<{ first: number; last: number } | null> {
  const first = Math.max(seen.last_update_seq, seen.title_last_seq ?? 0) + 1;
  const last = first + TITLE_SEQ_BLOCK - 1;
  const granted = queryBuilder(provider)
    .updateTable('workflows')
    .set({ title_worker_id: workerId, title_first_seq: first, title_last_seq: last, updated_at: new Date() })
    .where('id', '=', seen.id)
    .where('assigned_worker_id', 'is', null)
    .where('title_generated', '=', false)
    .where('last_update_seq', '=', seen.last_update_seq)
    .where('title_last_seq', seen.title_last_seq === null ? 'is' : '=', seen.title_last_seq);
  return (await executeQuery(client, provider, granted)) === 1 ? { first, last } : null;
}

/** The title-grant columns of the ingest's cached row. */
export interface TitleGrantRow {
  title_worker_id: string | null;
  title_first_seq: number | null;
  title_last_seq: number | null;
}

/** Whether a worker may store this update of a workflow it does not run: its title job's LLM calls and title. */
export function mayStoreForTitle(
  row: TitleGrantRow,
  workerId: string,
  update: Pick<UpdateMessage, 'kind' | 'seq'>,
): boolean {
  return (
    row.title_worker_id === workerId &&
    row.title_first_seq !== null &&
    row.title_last_seq !== null &&
    (update.kind === 'title' || update.kind === 'llm_call') &&
    update.seq >= row.title_first_seq &&
    update.seq <= row.title_last_seq
  );
}
