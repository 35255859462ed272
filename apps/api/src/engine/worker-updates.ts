import type { StatusUpdateData, TitleUpdateData, WorkflowStatus, WsErrorInfo } from '@svc/protocol';
import type { NewEvent, WorkflowRef } from '../events';
import {
  NO_QUESTION_OPTIONS,
  questionOptionColumns,
  questionOptionFields,
  type QuestionColumns,
} from './question-options';
import { decide, isFinished, UNFINISHED, type RunEvent } from './state-machine';

/** The other columns a batch of worker updates writes (worker-batch.ts writes them in one statement). */
export interface RunColumns {
  plan_revising?: boolean;
  app_url?: string | null;
  title?: string;
  title_generated?: boolean;
  title_worker_id?: null;
  title_first_seq?: null;
  title_last_seq?: null;
}

/** The columns a reported status writes (worker-batch.ts writes them in one statement). */
export interface ReportedStatusColumns extends Partial<QuestionColumns> {
  status: WorkflowStatus;
  question: string | null;
  error: string | null;
  /** null when the holder gave the run back (paused) */
  assigned_worker_id?: null;
  budget_exceeded_at?: Date;
}

/** The columns of a run that worker updates are checked against (the ingest caches them). */
export interface RunRow extends WorkflowRef {
  assigned_worker_id: string | null;
  status: string;
  last_update_seq: number;
  plan_revision: number;
  title_worker_id: string | null;
  title_first_seq: number | null;
  title_last_seq: number | null;
}

export interface PlannedEvent extends NewEvent {
  /** only stored when the status change it reports was applied */
  statusChange?: true;
}

/** What a batch of one run's worker updates changes: its columns, its events, who holds it afterwards. */
export interface RunChanges {
  readonly row: RunRow;
  readonly patch: RunColumns;
  /** the reported status and its columns, written only if the table still admits it when the batch commits */
  statusPatch: ReportedStatusColumns | null;
  readonly events: PlannedEvent[];
  maxSeq: number;
  /** the assigned worker gave the workflow back (paused), or it reached a final status */
  released: 'paused' | 'finished' | null;
  /** the worker that held the workflow when it was released */
  releasedBy: string | null;
  titleStored: boolean;
  /** project lists show status and title: they get a `project_changed` notice */
  listChanged: boolean;
  /** The run changed before the commit (a cancel won): the status report is recorded, not applied. */
  statusRefused(): void;
}

/**
 * A worker's status report, checked against the table from the status the run has so far in the batch.
 * An undeclared one is refused (nothing of the update is stored); a report about a finished run is
 * recorded without being applied; otherwise the status and its columns are planned. Returns the refusal,
 * or the report's events (its `workflow_status` event, stored only if the status is written).
 */
export function planWorkerStatus(
  changes: RunChanges,
  workerId: string,
  seq: number,
  data: StatusUpdateData,
): { error: WsErrorInfo } | { events: PlannedEvent[] } {
  const { status, question, error } = data;
  const decision = decide(changes.row.status as WorkflowStatus, workerReported(data));
  if (decision.kind === 'refuse')
    return {
      error: { code: 'conflict', message: `update ${seq}: ${decision.reason} (status is ${changes.row.status})` },
    };
  const asked = questionParts(changes.row.status, data);
  released(changes, workerId, status);
  if (decision.kind === 'stay') return { events: [] };
  changes.statusPatch = { status, question: question ?? null, error: error ?? null, ...asked.columns };
  if (changes.released === 'paused') changes.statusPatch.assigned_worker_id = null;
  changes.row.status = status;
  changes.listChanged = true;
  const event: PlannedEvent = {
    type: 'workflow_status',
    data: { status, question: question ?? null, error: error ?? null, ...asked.eventData },
    statusChange: true,
  };
  return { events: [event, ...budgetStop(changes.statusPatch, data)] };
}

/**
 * The question columns a report writes (its choices, default and deadline; none left once it is not
 * waiting) and what its event tells of them. A worker re-asking a restored question (waiting_user again)
 * keeps what the server stored for it, its deadline included.
 */
function questionParts(
  from: string,
  data: StatusUpdateData,
): { columns: Partial<typeof NO_QUESTION_OPTIONS | QuestionColumns>; eventData: Record<string, unknown> } {
  if (data.status !== 'waiting_user') return { columns: NO_QUESTION_OPTIONS, eventData: {} };
  if (from === 'waiting_user') return { columns: {}, eventData: {} };
  const columns = questionOptionColumns(data, new Date());
  return { columns, eventData: questionOptionFields(columns) };
}

/** The worker stopped the run at its budget: the stop is stamped and told with a `budget_exceeded` event. */
function budgetStop(patch: NonNullable<RunChanges['statusPatch']>, data: StatusUpdateData): PlannedEvent[] {
  const reached = data.budget_exceeded;
  if (!reached || (data.status !== 'waiting_user' && data.status !== 'failed')) return [];
  patch.budget_exceeded_at = new Date();
  const policy = data.status === 'failed' ? 'fail' : 'pause';
  const message = (policy === 'fail' ? data.error : data.question) ?? '';
  return [{ type: 'budget_exceeded', data: { policy, reached, message, by: 'worker' }, statusChange: true }];
}

/** Whether the report gives the run back: a pause by its holder, or a final status. */
function released(changes: RunChanges, workerId: string, status: WorkflowStatus): void {
  const { row } = changes;
  if (status === 'pending' && row.assigned_worker_id === workerId) {
    row.assigned_worker_id = null;
    changes.released = 'paused';
    changes.releasedBy = workerId;
  } else if (isFinished(status)) {
    changes.released = 'finished';
    changes.releasedBy = row.assigned_worker_id;
  }
}

/**
 * A worker's title: it ends a title job's seq block (in the same commit, so the next dispatch sees it);
 * a superseded one (a later title is stored) only ends the block.
 */
export function planWorkerTitle(changes: RunChanges, data: TitleUpdateData, superseded: boolean): NewEvent[] {
  changes.titleStored = true;
  Object.assign(changes.patch, { title_worker_id: null, title_first_seq: null, title_last_seq: null });
  if (superseded) return [];
  Object.assign(changes.patch, { title: data.title, title_generated: true });
  changes.listChanged = true;
  return [{ type: 'workflow_title', data: { title: data.title } }];
}

export const workerReported = (data: StatusUpdateData): RunEvent => ({ type: 'worker_reported', ...data });

/** The statuses a run may have for the reported status to be written (the conditional UPDATE's predicate). */
export function reportableFrom(status: WorkflowStatus, question: string | null | undefined): WorkflowStatus[] {
  return UNFINISHED.filter(
    (from) => decide(from, workerReported({ status, question: question ?? undefined })).kind === 'move',
  );
}
