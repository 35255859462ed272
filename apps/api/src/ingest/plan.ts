// Row ids are time-ordered (UUIDv7): new rows land at the end of their primary-key index, not on random
// pages all over it, so a batch's commit writes a few index pages instead of one per row (issue 11).
import { v7 as timeOrderedId } from 'uuid';
import { diffSteps, fromSnapshot, SnapshotError, type Step } from '@svc/agent-core';
import type { Prisma } from '@svc/db';
import type { UpdateMessage, WsErrorInfo } from '@svc/protocol';
import { outputLineTimesColumn, outputObjectColumns, presentLlmCall } from '../wire/logs';
import { logEntryEvents } from '../events/stored-rows';
import type { NewEvent } from '../events';
import { planWorkerStatus, planWorkerTitle, type PlannedEvent, type RunChanges, type RunRow } from '../engine';
import { storedMessages } from '../wire/llm-detail';

/**
 * The workflow columns an update batch reads (the engine checks worker updates against them), and
 * whether feedback awaits a revised plan (the next snapshot clears it).
 */
export type IngestWorkflow = RunRow & { plan_revising: boolean };

/** The latest snapshot seen of a workflow, to diff the next one against. */
export interface KnownSnapshot {
  seq: number;
  steps: Step[];
}

/** One workflow's share of a batch: rows to insert, its column changes, its events (in order). */
export class WorkflowPlan implements RunChanges {
  readonly patch: RunChanges['patch'] = {};
  statusPatch: RunChanges['statusPatch'] = null;
  readonly events: PlannedEvent[] = [];
  maxSeq = 0;
  snapshot: KnownSnapshot | null = null;
  released: RunChanges['released'] = null;
  releasedBy: string | null = null;
  titleStored = false;
  listChanged = false;
  /** this batch's rows of `plan_step_times` by step index (in PlannedRows.stepTimes too) */
  readonly stepTimes = new Map<number, StepTimeRow>();

  constructor(
    readonly row: IngestWorkflow,
    /** the latest stored snapshot; read only for a batch that stores one of the run (null otherwise) */
    readonly knownSnapshot: KnownSnapshot | null,
  ) {}

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
  /** one per (workflow, step) whose times changed; a null started_at keeps the stored one (see sql.ts) */
  stepTimes: StepTimeRow[];
}

export interface StepTimeRow {
  workflow_id: string;
  step_index: number;
  started_at: Date | null;
  finished_at: Date | null;
}

export const emptyRows = (): PlannedRows => ({
  workerUpdates: [],
  snapshots: [],
  logEntries: [],
  llmCalls: [],
  llmCallDetails: [],
  stepDiffs: [],
  stepTimes: [],
});

/** What the planning of a batch needs besides the plan: whether LLM call details are kept at all. */
export interface PlanContext {
  /** `llm_detail_retention_days` is 0: details are not stored */
  storeDetails: boolean;
}

/** What planning one update gave: its events besides `workflow_update`, or instead of it, or a refusal. */
interface Planned {
  /** what the `workflow_update` event says the worker sent (bulky parts live in their own tables) */
  echoed?: unknown;
  derived?: NewEvent[];
  /** the update's events when they are not its `workflow_update` and the derived ones */
  events?: NewEvent[];
  error?: WsErrorInfo;
}

/** One update's facts every kind's planner needs. */
interface UpdateContext<K extends UpdateMessage['kind']> {
  plan: WorkflowPlan;
  rows: PlannedRows;
  workerId: string;
  update: Extract<UpdateMessage, { kind: K }>;
  now: Date;
  superseded: boolean;
  context: PlanContext;
  base: { workflow_id: string; seq: number };
}

type Planners = { [K in UpdateMessage['kind']]: (c: UpdateContext<K>) => Planned };

/**
 * Adds one new (not yet stored, owned) update to the plan: its `worker_updates` row, the row of its
 * kind, the column changes and the events. `superseded` says a later update of the same kind is
 * stored already (this one arrived out of order), so it must not overwrite what that one set.
 * Returns an error instead when the update's content is refused (nothing of it is planned).
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
  const base = { workflow_id: plan.row.id, seq: update.seq };
  const planner = PLANNERS[update.kind] as (c: UpdateContext<UpdateMessage['kind']>) => Planned;
  const planned = planner({ plan, rows, workerId, update, now, superseded, context, base });
  if (planned.error) return planned.error;
  // The update's content is in its workflow_update event (and its kind's table): not stored again here.
  rows.workerUpdates.push({ ...base, kind: update.kind, worker_id: workerId, created_at: now });
  const echoed = 'echoed' in planned ? planned.echoed : update.data;
  plan.events.push(
    ...(planned.events ?? [
      { type: 'workflow_update', data: { kind: update.kind, data: echoed } },
      ...(planned.derived ?? []),
    ]),
  );
  plan.maxSeq = Math.max(plan.maxSeq, update.seq);
  return null;
}

function planSnapshot({ plan, rows, update, now, base }: UpdateContext<'snapshot'>): Planned {
  let steps: Step[];
  try {
    steps = fromSnapshot(update.data).steps;
  } catch (error) {
    if (error instanceof SnapshotError)
      return { error: { code: 'invalid_input', message: `update ${update.seq}: ${error.message}` } };
    throw error;
  }
  rows.snapshots.push(snapshotRow(update.data, base, now));
  // Any snapshot after the feedback answers it, as the event order has it (decision 0067).
  if (plan.row.plan_revising) [plan.patch.plan_revising, plan.row.plan_revising] = [false, false];
  const previous = plan.snapshot ?? plan.knownSnapshot;
  if (previous && previous.seq >= update.seq) return {};
  plan.snapshot = { seq: update.seq, steps };
  const changes = diffSteps(previous?.steps ?? [], steps);
  for (const change of changes) timeStep(plan, rows, change.index, change.to, now);
  return {
    derived: changes.map((change) => ({
      type: 'plan_step_status',
      data: { index: change.index, title: change.title, status: change.to },
    })),
  };
}

/**
 * A step's times as its plan_step_status events give them: becoming running starts it afresh (and
 * clears its finish), becoming done finishes it; other statuses change neither.
 */
function timeStep(plan: WorkflowPlan, rows: PlannedRows, index: number, status: string, now: Date): void {
  if (status !== 'running' && status !== 'done') return;
  let row = plan.stepTimes.get(index);
  if (!row) {
    row = { workflow_id: plan.row.id, step_index: index, started_at: null, finished_at: null };
    plan.stepTimes.set(index, row);
    rows.stepTimes.push(row);
  }
  if (status === 'running') [row.started_at, row.finished_at] = [now, null];
  else row.finished_at = now;
}

function snapshotRow(
  data: Extract<UpdateMessage, { kind: 'snapshot' }>['data'],
  base: { workflow_id: string; seq: number },
  now: Date,
): Prisma.AgentStateSnapshotCreateManyInput {
  return {
    id: timeOrderedId(),
    ...base,
    phase: data.phase,
    // The column is NOT NULL; -1 stands for "no running step" (presenters read it only while executing).
    current_step: data.current_step ?? -1,
    steps: data.steps,
    memo: data.memo,
    pending_question: data.pending_question ?? null,
    created_at: now,
  };
}

function planLogEntry({ plan, rows, update, now, base }: UpdateContext<'log_entry'>): Planned {
  const { duration_ms, output_object, output_line_times, ...entry } = update.data;
  const row = {
    id: timeOrderedId(),
    ...base,
    ...entry,
    tool_input: entry.tool_input as Prisma.JsonObject,
    revision: plan.row.plan_revision,
    duration_ms: duration_ms ?? null,
    ...outputObjectColumns({ output_object }),
    ...outputLineTimesColumn({ output_line_times }),
    created_at: now,
  };
  rows.logEntries.push(row);
  return { events: logEntryEvents(update.data, row) };
}

function planLlmCall({ rows, update, now, base, context }: UpdateContext<'llm_call'>): Planned {
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
      messages: storedMessages(detail.messages, detail.tools),
      reply: JSON.stringify(detail.reply),
      truncated: detail.truncated,
      created_at: now,
    });
  }
  const derived = [{ type: 'llm_call' as const, data: presentLlmCall({ ...row, has_detail: storeDetail }) }];
  // Details are read on demand (GET /workflows/{id}/llm-calls/{call_id}), not replayed with every event.
  return detail === undefined ? { derived } : { derived, echoed: withoutDetail(update.data) };
}

function planStepDiff({ plan, rows, update, now, base }: UpdateContext<'step_diff'>): Planned {
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
  return { echoed: { ...update.data, patch: '' } };
}

/** A status report goes through the engine's table; a superseded one is only recorded. */
function planStatus({ plan, workerId, update, superseded }: UpdateContext<'status'>): Planned {
  if (superseded) return {};
  const planned = planWorkerStatus(plan, workerId, update.seq, update.data);
  return 'error' in planned ? planned : { derived: planned.events };
}

const PLANNERS: Planners = {
  snapshot: planSnapshot,
  log_entry: planLogEntry,
  llm_call: planLlmCall,
  step_diff: planStepDiff,
  status: planStatus,
  title: ({ plan, update, superseded }) => ({ derived: planWorkerTitle(plan, update.data, superseded) }),
  report: ({ plan, update, superseded }) => {
    if (!superseded) plan.patch.app_url = update.data.app_url;
    return {};
  },
  file_changed: ({ update }) => ({ derived: [{ type: 'file_changed', data: update.data }] }),
  repository: planRepository,
};

/**
 * A push report (decision 0046): the event says whether the branch was pushed; the diff is stored in
 * workflow_repositories after the commit (UpdateIngest's `onRepository`) and served by
 * GET /workflows/{id}/repository/diff, so neither event carries it.
 */
function planRepository({ update }: UpdateContext<'repository'>): Planned {
  const { diff: _diff, ...rest } = update.data;
  const data = update.data;
  return {
    echoed: rest,
    derived: [
      {
        type: 'repository_pushed',
        data: {
          branch: data.branch,
          base_branch: data.base_branch,
          head_sha: data.head_sha,
          pushed: data.pushed,
          error: data.error ?? null,
          commits: data.commits ?? null,
        },
      },
    ],
  };
}

function withoutDetail<T extends { detail?: unknown }>(data: T): Omit<T, 'detail'> {
  const copy = { ...data };
  delete copy.detail;
  return copy;
}
