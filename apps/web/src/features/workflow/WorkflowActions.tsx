import { TERMINAL_WORKFLOW_STATUSES, type Workflow } from '@svc/protocol';
import { ErrorNote } from '../../components/Feedback';
import { ConfirmButton } from '../../components/ConfirmButton';
import { cancelWorkflow, retryWorkflow } from './api';
import { useWorkflowMutation } from './useWorkflowMutation';

/** Cancel while the workflow runs; retry (from its latest snapshot) once it failed or was cancelled. */
export function WorkflowActions({ workflow }: { workflow: Workflow }) {
  const cancel = useWorkflowMutation(workflow.id, () => cancelWorkflow(workflow.id));
  const retry = useWorkflowMutation(workflow.id, () => retryWorkflow(workflow.id));
  const canCancel = !TERMINAL_WORKFLOW_STATUSES.includes(workflow.status);
  const canRetry = workflow.status === 'failed' || workflow.status === 'cancelled';
  return (
    <div className="inline-actions">
      {canCancel && (
        <ConfirmButton
          label="Cancel workflow"
          question="Stop this workflow?"
          confirmLabel="Yes, cancel workflow"
          keepLabel="Keep running"
          busyLabel="Cancelling…"
          busy={cancel.isPending}
          onConfirm={() => cancel.mutate(undefined)}
        />
      )}
      {canRetry && (
        <button type="button" onClick={() => retry.mutate(undefined)} disabled={retry.isPending}>
          {retry.isPending ? 'Retrying…' : 'Retry'}
        </button>
      )}
      <ErrorNote error={cancel.error ?? retry.error} />
    </div>
  );
}
