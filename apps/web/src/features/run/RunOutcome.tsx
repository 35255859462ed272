import type { PlanStepInfo, Workflow } from '@svc/protocol';
import { ResultCard } from './ResultCard';
import { CancelledNotice, FailureBanner } from './StopNotice';
import type { WorkflowAction } from './wire';

/**
 * How a stopped run ended: its failure (at `step`), who cancelled it, or its result. Nothing while it runs,
 * and no result card while the report tab is open (`reportTabOpen`): the report is shown once.
 */
export function RunOutcome({
  workflow,
  step,
  cancelledBy,
  reportTabOpen,
}: {
  workflow: Workflow;
  step: PlanStepInfo | null;
  cancelledBy: WorkflowAction | null;
  reportTabOpen: boolean;
}) {
  switch (workflow.status) {
    case 'failed':
      return <FailureBanner workflow={workflow} step={step} />;
    case 'cancelled':
      return <CancelledNotice workflow={workflow} by={cancelledBy} />;
    case 'completed':
      return reportTabOpen ? null : <ResultCard workflow={workflow} />;
    default:
      return null;
  }
}
