// Row ids are time-ordered (UUIDv7): new rows land at the end of their primary-key index, not on random
// pages all over it, so a batch's commit writes a few index pages instead of one per row (issue 11).
import { v7 as timeOrderedId } from 'uuid';
import { diffSteps, fromSnapshot, SnapshotError, type Step } from '@svc/agent-core';
import type { Prisma } from '@svc/db';
import { TERMINAL_WORKFLOW_STATUSES, type UpdateMessage, type WorkflowStatus, type WsErrorInfo } from '@svc/protocol';
import { presentLlmCall } from '../wire/logs';
import { logEntryEvents } from '../events/stored-rows';
import type { NewEvent } from '../events';
import type { TitleGrantRow } from '../dispatch/steering-store';

/** The workflow columns an update batch reads. */
export interface IngestWorkflow extends TitleGrantRow {
  id: string;
  project_id: string;
  assigned_worker_id: string | null;
  status: string;
  last_update_seq: number;
  /** stamped on log entries and step diffs; cached rows are forgotten when feedback raises it */
  plan_revision: number;
}

/** The latest snapshot seen of a workflow, to diff the next one against. */
export interface KnownSnapshot {
  seq: number;
  steps: Step[];
}

export interface PlannedEvent extends NewEvent {
  /** only stored when the status change it reports was applied */
  statusChange?: true;
}

/** One workflow's share of a batch: rows to insert, its column changes, its events (in order). */
export class WorkflowPlan {
  readonly patch: Prisma.WorkflowUpdateInput = {};
  /** status columns, written only while the workflow is unfinished (a cancel in between wins) */
  statusPatch: Prisma.WorkflowUpdateManyMutationInput | null = null;
  readonly events: PlannedEvent[] = [];
  maxSeq = 0;
  snapshot: KnownSnapshot | null = null;
  /** the assigned worker gave the workflow back (paused), or it reached a final status */
  released: 'paused' | 'finished' | null = null;
  /** the worker that held the workflow when it was released */
  releasedBy: string | null = null;
  titleStored = false;
  /** project lists show status and title: they get a `project_changed` notice */
  listChanged = false;

  constructor(
    readonly row: IngestWorkflow,
    readonly knownSnapshot: KnownSnapshot | null,
  ) {}

  /** The workflow finished before the status change could be written: it is recorded, not applied. */
  statusRefused(): void {
    this.statusPatch = null;
    const kept = this.events.filter((e) => !e.statusChange);
    this.events.splice(0, this.events.length, ...kept);
  }
}

export interface PlannedRows {
  workerUpdates: Prisma.WorkerUpdateCreateManyInput[];
  snapshots: Prisma.AgentStateSnapshotCreateManyInput[];
  logEntries: Prisma.ExecutionLogEntryCreateManyInput[];
  llmCalls: Prisma.LlmCallLogCreateManyInput[];
  /** after llmCalls: each refers to its call */
  llmCallDetails: Prisma.LlmCallDetailCreateManyInput[];
  stepDiffs: Prisma.StepDiffCreateManyInput[];
}

export const emptyRows = (): PlannedRows => ({
  workerUpdates: [],
  snapshots: [],
  logEntries: [],
  llmCalls: [],
  llmCallDetails: [],
  stepDiffs: [],
});

/** What the planning of a batch needs besides the plan: whether LLM call details are kept at all. */
export interface PlanContext {
  /** `llm_detail_retention_days` is 0: details are not stored */
  storeDetails: boolean;
}

const isTerminal = (status: string) => TERMINAL_WORKFLOW_STATUSES.includes(status as WorkflowStatus);

/**
 * Adds one new (not yet stored, owned) update to the plan: its `worker_updates` row, the row of its
 * kind, the column changes and the events. `superseded` says a later update of the same kind is
 * stored already (this one arrived out of order), so it must not overwrite what that one set.
 * Returns an error instead when the update's content is refused.
 */
export function planUpdate(
  plan: WorkflowPlan,
  rows: PlannedRows,
  workerId: string,
  update: UpdateMessage,
  now: Date,
  superseded: boolean,
  context: PlanContext = { storeDetails: true },
): WsErrorInfo | null {
  const workflowId = plan.row.id;
  const base = { workflow_id: workflowId, seq: update.seq };
  const derived: PlannedEvent[] = [];
  /** what the `workflow_update` event says the worker sent (bulky parts live in their own tables) */
  let echoed: unknown = update.data;
  /** the update's events when they are not its `workflow_update` and the derived ones */
  let events: NewEvent[] | null = null;
  switch (update.kind) {
    case 'snapshot': {
      let steps: Step[];
      try {
        steps = fromSnapshot(update.data).steps;
      } catch (error) {
        if (error instanceof SnapshotError)
          return { code: 'invalid_input', message: `update ${update.seq}: ${error.message}` };
        throw error;
      }
      const data = update.data;
      rows.snapshots.push({
        id: timeOrderedId(),
        ...base,
        phase: data.phase,
        // The column is NOT NULL; -1 stands for "no running step" (presenters read it only while executing).
        current_step: data.current_step ?? -1,
        steps: data.steps,
        memo: data.memo,
        pending_question: data.pending_question ?? null,
        created_at: now,
      });
      const previous = plan.snapshot ?? plan.knownSnapshot;
      if (!previous || previous.seq < update.seq) {
        for (const change of diffSteps(previous?.steps ?? [], steps)) {
          derived.push({
            type: 'plan_step_status',
            data: { index: change.index, title: change.title, status: change.to },
          });
        }
        plan.snapshot = { seq: update.seq, steps };
      }
      break;
    }
    case 'log_entry': {
      const { duration_ms, ...entry } = update.data;
      const row = {
        id: timeOrderedId(),
        ...base,
        ...entry,
        tool_input: entry.tool_input as Prisma.JsonObject,
        revision: plan.row.plan_revision,
        duration_ms: duration_ms ?? null,
        created_at: now,
      };
      rows.logEntries.push(row);
      events = logEntryEvents(update.data, row);
      break;
    }
    case 'llm_call': {
      // Older workers send neither attempt nor error: they only logged successful calls.
      const { attempt, error, finish_reason, detail, ...call } = update.data;
      const row = {
        id: timeOrderedId(),
        ...base,
        ...call,
        attempt: attempt ?? 1,
        error: error ?? null,
        finish_reason: finish_reason ?? null,
        created_at: now,
      };
      rows.llmCalls.push(row);
      const storeDetail = detail !== undefined && context.storeDetails;
      if (storeDetail) {
        rows.llmCallDetails.push({
          call_id: row.id,
          messages: JSON.stringify(detail.messages),
          reply: JSON.stringify(detail.reply),
          truncated: detail.truncated,
          created_at: now,
        });
      }
      // Details are read on demand (GET /workflows/{id}/llm-calls/{call_id}), not replayed with every event.
      if (detail !== undefined) echoed = withoutDetail(update.data);
      derived.push({ type: 'llm_call', data: presentLlmCall({ ...row, has_detail: storeDetail }) });
      break;
    }
    case 'step_diff': {
      const { step_index, files, patch, truncated } = update.data;
      rows.stepDiffs.push({
        ...base,
        step_index,
        revision: plan.row.plan_revision,
        files: files as Prisma.JsonArray,
        patch,
        truncated,
        created_at: now,
      });
      // The patch is served by GET /workflows/{id}/diffs; the event only announces the step's files.
      echoed = { ...update.data, patch: '' };
      break;
    }
    case 'status': {
      const { status, question, error } = update.data;
      // A finished workflow keeps its status: the write is conditional (see statusRefused), so the
      // database decides, not this possibly cached row.
      if (superseded) break;
      plan.statusPatch = { status, question: question ?? null, error: error ?? null };
      plan.row.status = status;
      plan.listChanged = true;
      if (status === 'pending' && plan.row.assigned_worker_id === workerId) {
        plan.statusPatch.assigned_worker_id = null;
        plan.row.assigned_worker_id = null;
        plan.released = 'paused';
        plan.releasedBy = workerId;
      } else if (isTerminal(status)) {
        plan.released = 'finished';
        plan.releasedBy = plan.row.assigned_worker_id;
      }
      derived.push({
        type: 'workflow_status',
        data: { status, question: question ?? null, error: error ?? null },
        statusChange: true,
      });
      break;
    }
    case 'title':
      plan.titleStored = true;
      // A title job's seq block ends with its title (in the same commit, so the next dispatch sees it).
      Object.assign(plan.patch, { title_worker_id: null, title_first_seq: null, title_last_seq: null });
      if (superseded) break;
      Object.assign(plan.patch, { title: update.data.title, title_generated: true });
      plan.listChanged = true;
      derived.push({ type: 'workflow_title', data: { title: update.data.title } });
      break;
    case 'report':
      if (!superseded) plan.patch.app_url = update.data.app_url;
      break;
    case 'file_changed':
      derived.push({ type: 'file_changed', data: update.data });
      break;
    default: {
      const unreachable: never = update;
      return unreachable;
    }
  }
  // The update's content is in its workflow_update event (and its kind's table): not stored again here.
  rows.workerUpdates.push({ ...base, kind: update.kind, worker_id: workerId, created_at: now });
  plan.events.push(...(events ?? [{ type: 'workflow_update', data: { kind: update.kind, data: echoed } }, ...derived]));
  plan.maxSeq = Math.max(plan.maxSeq, update.seq);
  return null;
}

function withoutDetail<T extends { detail?: unknown }>(data: T): Omit<T, 'detail'> {
  const copy = { ...data };
  delete copy.detail;
  return copy;
}
