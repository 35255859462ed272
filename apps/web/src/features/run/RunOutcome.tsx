import type { PlanStepInfo, Workflow } from '@svc/protocol';
import { ResultCard } from './ResultCard';
import { CancelledNotice, FailureBanner } from './StopNotice';
import type { WorkflowAction } from './wire';

/** How a stopped run ended: its failure (at `step`), who cancelled it, or its result. Nothing while it runs. */
export function RunOutcome({
  workflow,
  step,
  cancelledBy,
}: {
  workflow: Workflow;
  step: PlanStepInfo | null;
  cancelledBy: WorkflowAction | null;
}) {
  switch (workflow.status) {
    case 'failed':
      return <FailureBanner workflow={workflow} step={step} />;
    case 'cancelled':
      return <CancelledNotice workflow={workflow} by={cancelledBy} />;
    case 'completed':
      return <ResultCard workflow={workflow} />;
    default:
      return null;
  }
}
