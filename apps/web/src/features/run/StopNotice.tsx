import { describeFailure } from './failure';
import { formatClock } from './time';
import type { PlanStepInfo, Workflow } from '@svc/protocol';
import type { WorkflowAction } from './wire';

/** Why a failed run stopped, in plain words first, with the raw error kept as detail. */
export function FailureBanner({ workflow, step }: { workflow: Workflow; step: PlanStepInfo | null }) {
  const { headline, detail } = describeFailure(workflow.error);
  return (
    <div className="run-stopped run-failed" role="alert" data-testid="failure-banner">
      <p className="run-stopped-head">
        <strong>This run failed{step ? ` at step ${step.index + 1} (${step.title})` : ''}.</strong> {headline}
      </p>
      <p className="small">
        Retry continues from the last saved state of the plan; Re-run starts over with a new requirement.
      </p>
      {detail && (
        <details>
          <summary>Error details</summary>
          <pre className="code">{detail}</pre>
        </details>
      )}
    </div>
  );
}

/** Who cancelled the run and when, when known. */
export function CancelledNotice({ workflow, by }: { workflow: Workflow; by: WorkflowAction | null }) {
  return (
    <div className="run-stopped" role="status" data-testid="cancelled-notice">
      <p className="run-stopped-head">
        <strong>This run was cancelled</strong>
        {by ? ` by ${by.actor.login}` : ''}
        {workflow.finished_at ? (
          <>
            {' '}
            at <time dateTime={workflow.finished_at}>{formatClock(workflow.finished_at)}</time>
          </>
        ) : null}
        . Retry continues from where it stopped.
      </p>
    </div>
  );
}
