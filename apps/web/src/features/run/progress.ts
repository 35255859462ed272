import type { PlanStepInfo, WorkflowStatus } from '@svc/protocol';
import { planView } from '@svc/agent-core';

/** Where the run is: `at` names the step in progress ("step 2 of 5: Build the cart"), if any. */
interface Progress {
  at: string | null;
  done: number;
  total: number;
  started: boolean;
}

/** `Failed at step 2 of 5: …`, or the bare word when no step was in progress. */
const stoppedAt =
  (word: string) =>
  ({ at }: Progress): string =>
    at ? `${word} at ${at}` : word;

function runningLine({ at, done, total }: Progress): string {
  if (at) return `Running ${at}`;
  if (total === 0) return 'Running';
  // every step done and still running: the agent writes its report (feedback would have said revising)
  return done === total ? 'Writing the report' : `Running · ${done} of ${total} steps done`;
}

const LINES: Record<WorkflowStatus, (progress: Progress) => string> = {
  pending: ({ started }) => (started ? 'Waiting for a worker to continue' : 'Waiting for a worker'),
  planning: () => 'Planning',
  running: runningLine,
  waiting_user: ({ at }) => (at ? `Waiting for an answer at ${at}` : 'Waiting for an answer'),
  paused: stoppedAt('Paused'),
  completed: ({ total }) => (total > 0 ? `Completed all ${total} steps` : 'Completed'),
  failed: stoppedAt('Failed'),
  cancelled: stoppedAt('Cancelled'),
};

/** One line saying where the run is, e.g. "Step 2 of 5: Build the cart" or "Revising the plan". */
export function progressLine(
  status: WorkflowStatus,
  steps: readonly PlanStepInfo[],
  revising: boolean,
  started: boolean,
): string {
  if (revising) return 'Revising the plan after feedback';
  const { done, total, current } = planView(steps, status);
  const at = current ? `step ${current.index + 1} of ${total}: ${current.title}` : null;
  return LINES[status]({ at, done, total, started });
}
