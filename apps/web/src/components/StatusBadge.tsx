import type { StepStatus, WorkflowStatus } from '@svc/protocol';

const WORKFLOW_LABELS: Record<WorkflowStatus, string> = {
  pending: 'Pending',
  planning: 'Planning',
  running: 'Running',
  waiting_user: 'Waiting for input',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export function StatusBadge({ status }: { status: WorkflowStatus }) {
  return (
    <span className={`badge badge-${status}`} data-status={status}>
      {WORKFLOW_LABELS[status]}
    </span>
  );
}

const STEP_LABELS: Record<StepStatus, string> = { done: 'Done', running: 'Running', pending: 'Pending' };
const STEP_ICONS: Record<StepStatus, string> = { done: '✓', running: '▶', pending: '○' };

export function StepBadge({ status }: { status: StepStatus }) {
  return (
    <span className={`step-badge step-${status}`} data-step-status={status}>
      <span aria-hidden="true">{STEP_ICONS[status]}</span> {STEP_LABELS[status]}
    </span>
  );
}
