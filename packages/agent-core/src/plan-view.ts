import { TERMINAL_WORKFLOW_STATUSES, type PlanStepInfo, type StepStatus, type WorkflowStatus } from '@svc/protocol';

/**
 * The plan a person sees, from the plan as last reported (a snapshot's statuses, or the live step events
 * over it) and the workflow's status: the one set of rules GET /workflows/{id}/plan answers with and the
 * web app shows. A plan already projected may be projected again with a newer status (idempotent).
 *
 * - While feedback is being turned into a revised plan (`revising`, workflow not finished) a done step
 *   stays done with its times (what was finished stays finished; the revised plan says what runs again)
 *   and every other step is pending (issue 29, decision 0076).
 * - Only a running or paused workflow has a running step (a paused run stays in the step it stopped
 *   in, and goes on there when resumed). A step reported running (or interrupted before) is pending
 *   otherwise, and says `interrupted` when the workflow failed or was cancelled.
 * - A pending step has no start unless it was interrupted; only a done step has an end.
 */
export function projectPlan(steps: readonly PlanStepInfo[], status: WorkflowStatus, revising: boolean): PlanStepInfo[] {
  const invalidated = revising && !TERMINAL_WORKFLOW_STATUSES.includes(status);
  return steps.map((step) => projectStep(step, status, invalidated));
}

function projectStep(step: PlanStepInfo, status: WorkflowStatus, invalidated: boolean): PlanStepInfo {
  const shown = projectedStatus(step, status, invalidated);
  const stopped = status === 'failed' || status === 'cancelled';
  const interrupted = stopped && !invalidated && wasRunning(step) ? status : undefined;
  // Field by field, not a spread: GET /plan projects every step of every read.
  const projected: PlanStepInfo = {
    index: step.index,
    title: step.title,
    description: step.description,
    status: shown,
    started_at: shown === 'pending' && !interrupted ? null : step.started_at,
    finished_at: shown === 'done' ? step.finished_at : null,
  };
  if (interrupted) projected.interrupted = interrupted;
  return projected;
}

/** A step reported running, or interrupted while running, runs only while the workflow runs. */
function projectedStatus(step: PlanStepInfo, status: WorkflowStatus, invalidated: boolean): StepStatus {
  if (invalidated) return step.status === 'done' ? 'done' : 'pending';
  if (!wasRunning(step)) return step.status;
  return status === 'running' || status === 'paused' ? 'running' : 'pending';
}

const wasRunning = (step: PlanStepInfo) => step.status === 'running' || step.interrupted !== undefined;

/**
 * How a step is shown: `waiting` is the step a question waits in, `paused` the step a paused run stopped
 * in; an interrupted step shows why.
 */
export type StepDisplay =
  | 'done'
  | 'running'
  | 'waiting'
  | 'paused'
  | 'pending'
  | NonNullable<PlanStepInfo['interrupted']>;

export type ShownStep = PlanStepInfo & { display: StepDisplay };

export interface PlanView {
  steps: ShownStep[];
  done: number;
  total: number;
  /** the step in progress (running, waiting for an answer, paused) or where the workflow stopped; null when none */
  current: ShownStep | null;
}

/**
 * A projected plan as shown while the workflow has `status`. A question is asked in the first step not
 * done, so while the workflow waits for an answer that step shows `waiting` (the plan says pending).
 */
export function planView(steps: readonly PlanStepInfo[], status: WorkflowStatus): PlanView {
  const waiting = status === 'waiting_user' && !steps.some((s) => s.status === 'running');
  const waitingIn = waiting ? steps.findIndex((s) => s.status !== 'done') : -1;
  const paused = status === 'paused';
  const shown = steps.map((step, i): ShownStep => ({ ...step, display: displayOf(step, i === waitingIn, paused) }));
  return {
    steps: shown,
    done: steps.filter((s) => s.status === 'done').length,
    total: steps.length,
    current: shown.find((s) => s.display !== 'done' && s.display !== 'pending') ?? null,
  };
}

function displayOf(step: PlanStepInfo, waitsForAnswer: boolean, paused: boolean): StepDisplay {
  if (step.status === 'done') return 'done';
  if (step.interrupted) return step.interrupted;
  if (step.status === 'running') return paused ? 'paused' : 'running';
  return waitsForAnswer ? 'waiting' : 'pending';
}
