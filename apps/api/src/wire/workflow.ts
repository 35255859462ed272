import type { AgentStateSnapshot, Workflow as WorkflowRow } from '@svc/db';
import { fromSnapshot, planFromState, projectPlan } from '@svc/agent-core';
import type {
  PlanStepInfo,
  RunAuthor,
  SnapshotData,
  SnapshotListItem,
  Workflow,
  WorkflowListItem,
  WorkflowProgress,
  WorkflowStatus,
} from '@svc/protocol';
import { TERMINAL_WORKFLOW_STATUSES } from '@svc/protocol';
import { decodeRequires } from '../domain/routing';
import { choicesOf } from '../engine/question-options';

/** The worker a workflow names: the one running it, or the one the user asked for until one picks it up. */
export const workerIdOf = (workflow: Pick<WorkflowRow, 'assigned_worker_id' | 'requested_worker_id'>) =>
  workflow.assigned_worker_id ?? workflow.requested_worker_id;

/**
 * The worker `worker_name` names: the one in `worker_id`, else the one that last ran the run, so a run its
 * worker gave back (paused, lease lost) still says where it ran, as the "Ran on" filter finds it (decision 0082).
 */
export const namedWorkerIdOf = (
  workflow: Pick<WorkflowRow, 'assigned_worker_id' | 'requested_worker_id' | 'last_worker_id'>,
) => workerIdOf(workflow) ?? workflow.last_worker_id;

/**
 * `worker_name` is the name of the worker `namedWorkerIdOf` gives (null when there is none, or it is gone);
 * `appLink` is the workflow's built-app link (AppLinks.linkOf).
 */
export function presentWorkflow(workflow: WorkflowRow, workerName: string | null, appLink: string | null): Workflow {
  return {
    id: workflow.id,
    project_id: workflow.project_id,
    title: workflow.title,
    requirement: workflow.requirement,
    status: workflow.status as WorkflowStatus,
    question: workflow.question,
    // choices, default and deadline of the open question (issue 29, decision 0075)
    question_choices: choicesOf(workflow),
    question_default: workflow.question_default,
    question_deadline: workflow.question_deadline?.toISOString() ?? null,
    error: workflow.error,
    worker_id: workerIdOf(workflow),
    template: workflow.template,
    created_at: workflow.created_at.toISOString(),
    updated_at: workflow.updated_at.toISOString(),
    app_url: workflow.app_url,
    number: workflow.number,
    rerun_of: workflow.rerun_of,
    started_at: workflow.started_at?.toISOString() ?? null,
    finished_at: workflow.finished_at?.toISOString() ?? null,
    plan_revision: workflow.plan_revision,
    worker_name: workerName,
    // built apps (issue 14): the capability link, on every answer with a workflow
    app_link: appLink,
    // concurrency and priority (issue 23, decision 0037)
    priority: workflow.priority,
    concurrency_key: workflow.concurrency_key,
    concurrency_mode: workflow.concurrency_mode as Workflow['concurrency_mode'],
    requires: decodeRequires(workflow.requires),
    waiting_reason: waitingReasonOf(workflow),
    trace_id: workflow.trace_id,
  };
}

/** The routing notice, only while the run waits in the queue: a worker taking it, or its end, outdates it. */
function waitingReasonOf(workflow: WorkflowRow): string | null {
  if (workflow.assigned_worker_id !== null || TERMINAL_WORKFLOW_STATUSES.includes(workflow.status as WorkflowStatus))
    return null;
  return workflow.waiting_reason;
}

/**
 * A list item: the workflow, the progress its latest snapshot shows (null before any plan), who started
 * it, and how long it ran once it has finished (a running one's time is the client's clock minus `started_at`:
 * an answer that changed with the clock would differ on every read, e.g. across a backup and restore).
 */
export function presentWorkflowListItem(
  workflow: WorkflowRow,
  workerName: string | null,
  appLink: string | null,
  latest: SnapshotRow | null,
  revising: boolean,
  author: RunAuthor,
): WorkflowListItem {
  const progress = latest ? progressOf(latest, workflow.status as WorkflowStatus, revising) : null;
  const duration_ms = runDurationMs(workflow);
  return { ...presentWorkflow(workflow, workerName, appLink), progress, author, duration_ms };
}

/** How long a finished run ran, `started_at` to `finished_at`; null before it finished (decision 0074). */
export function runDurationMs({ started_at, finished_at }: Pick<WorkflowRow, 'started_at' | 'finished_at'>) {
  return started_at && finished_at ? Math.max(0, finished_at.getTime() - started_at.getTime()) : null;
}

/** The snapshot columns the plan and the progress are rebuilt from. */
export type SnapshotRow = Pick<AgentStateSnapshot, 'phase' | 'current_step' | 'steps' | 'memo' | 'pending_question'>;

/** How many steps of the plan are done, as the plan shows it (none while a revised plan is awaited). */
export function progressOf(latest: SnapshotRow, status: WorkflowStatus, revising: boolean): WorkflowProgress {
  const steps = projectPlan(reportedPlan(latest), status, revising);
  return { done: steps.filter((s) => s.status === 'done').length, total: steps.length };
}

/** The stored snapshot row in the wire form a worker sent it. */
export function snapshotData(row: SnapshotRow): SnapshotData {
  return {
    phase: row.phase as SnapshotData['phase'],
    current_step: row.phase === 'executing' ? row.current_step : null,
    steps: row.steps as SnapshotData['steps'],
    memo: row.memo as string[],
    pending_question: row.pending_question,
  };
}

export function presentSnapshot(row: AgentStateSnapshot): SnapshotListItem {
  return { id: row.id, seq: row.seq, created_at: row.created_at.toISOString(), snapshot: snapshotData(row) };
}

/** A step's times as table plan_step_times keeps them (ingest/plan.ts `timeStep`). */
export interface StepTimes {
  step_index: number;
  /** when it last became running */
  started_at: Date | null;
  /** when it became done after that */
  finished_at: Date | null;
}

export interface PlanInput {
  latest: SnapshotRow | null;
  status: WorkflowStatus;
  /** the workflow's step times, any order */
  stepTimes: readonly StepTimes[];
  /** feedback came after the latest snapshot: the worker has not sent the revised plan yet */
  revising: boolean;
}

/**
 * GET /workflows/{id}/plan: the plan the latest snapshot describes (none yet: empty), each step with
 * its kept times, as agent-core's projectPlan shows it for the workflow's status.
 */
export function presentPlan({ latest, status, stepTimes, revising }: PlanInput): PlanStepInfo[] {
  if (!latest) return [];
  const times = new Map(stepTimes.map((row) => [row.step_index, row]));
  return projectPlan(reportedPlan(latest, times), status, revising);
}

/**
 * The plan the snapshot describes, each step with its times (none known: null). Built field by field:
 * a spread of each step costs several times the rest of GET /plan.
 */
function reportedPlan(latest: SnapshotRow, times: ReadonlyMap<number, StepTimes> = new Map()): PlanStepInfo[] {
  return planFromState(fromSnapshot(snapshotData(latest))).map((step) => {
    const timed = times.get(step.index);
    return {
      index: step.index,
      title: step.title,
      description: step.description,
      status: step.status,
      started_at: iso(timed?.started_at ?? null),
      finished_at: iso(timed?.finished_at ?? null),
    };
  });
}

const iso = (at: Date | null) => at?.toISOString() ?? null;
