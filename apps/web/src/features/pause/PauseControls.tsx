import { useState } from 'react';
import type { Workflow } from '@svc/protocol';
import { ErrorNote } from '../../components/Feedback';
import { useWorkflowMutation } from '../workflow/useWorkflowMutation';
import { pauseWorkflow, resumeWorkflow } from './api';

/**
 * Pause a planning or running workflow (it stops at the next tool boundary: after the running command,
 * or at once killing it when "interrupt" is ticked), and resume a paused one where it stopped.
 */
export function PauseControls({ workflow }: { workflow: Workflow }) {
  const [interrupt, setInterrupt] = useState(false);
  const pause = useWorkflowMutation(workflow.id, (kill: boolean) => pauseWorkflow(workflow.id, kill));
  const resume = useWorkflowMutation(workflow.id, () => resumeWorkflow(workflow.id));
  const canPause = workflow.status === 'planning' || workflow.status === 'running';
  // Asked, and the worker has not reached a tool boundary yet: the status still says running.
  const pausing = canPause && pause.isSuccess;
  return (
    <div className="inline-actions pause-controls" data-testid="pause-controls">
      {canPause && !pausing && (
        <>
          <button type="button" onClick={() => pause.mutate(interrupt)} disabled={pause.isPending}>
            {pause.isPending ? 'Pausing…' : 'Pause'}
          </button>
          <label className="small">
            <input type="checkbox" checked={interrupt} onChange={(e) => setInterrupt(e.target.checked)} /> interrupt the
            current command
          </label>
        </>
      )}
      {pausing && (
        <span className="muted small" role="status">
          Pausing at the next tool boundary…
        </span>
      )}
      {workflow.status === 'paused' && (
        <button
          type="button"
          onClick={() => resume.mutate(undefined, { onSuccess: () => pause.reset() })}
          disabled={resume.isPending}
        >
          {resume.isPending ? 'Resuming…' : 'Resume'}
        </button>
      )}
      <ErrorNote error={pause.error ?? resume.error} />
    </div>
  );
}
