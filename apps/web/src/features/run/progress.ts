import type { PlanStepInfo, WorkflowStatus } from '@svc/protocol';
import { planView } from '@svc/agent-core';

/** One line saying where the run is, e.g. "Step 2 of 5: Build the cart" or "Revising the plan". */
export function progressLine(
  status: WorkflowStatus,
  steps: readonly PlanStepInfo[],
  revising: boolean,
  started: boolean,
): string {
  const { done, total, current } = planView(steps, status);
  const at = current ? `step ${current.index + 1} of ${total}: ${current.title}` : null;
  if (revising) return 'Revising the plan after feedback';
  switch (status) {
    case 'pending':
      return started ? 'Waiting for a worker to continue' : 'Waiting for a worker';
    case 'planning':
      return 'Planning';
    case 'running':
      if (at) return `Running ${at}`;
      // every step done and still running: the agent writes its report (feedback would have said revising)
      if (total > 0 && done === total) return 'Writing the report';
      return total > 0 ? `Running · ${done} of ${total} steps done` : 'Running';
    case 'waiting_user':
      return at ? `Waiting for an answer at ${at}` : 'Waiting for an answer';
    case 'completed':
      return total > 0 ? `Completed all ${total} steps` : 'Completed';
    case 'failed':
      return at ? `Failed at ${at}` : 'Failed';
    case 'cancelled':
      return at ? `Cancelled at ${at}` : 'Cancelled';
  }
}
