import { EmptyRequestSchema } from '../common';
import { PauseRequestSchema } from '../rest/pause';
import { WorkflowSchema } from '../rest/workflows';
import { API, defineOperations, json, jsonBody, workflowId } from './operation';

const theWorkflow = json('the workflow', WorkflowSchema);
const action = {
  method: 'POST',
  tag: 'workflows',
  auth: 'required',
  action: 'workflow.control',
  params: workflowId,
} as const;

/** Pausing a run at its next tool boundary and resuming it where it stopped (decision 0039). */
export const PAUSE_OPERATIONS = defineOperations({
  pauseWorkflow: {
    ...action,
    path: `${API}/workflows/{id}/pause`,
    summary:
      'Pause a planning or running workflow: its worker stops at the next tool boundary (after the running command, or killing it with `interrupt`) and reports `paused`',
    body: jsonBody(PauseRequestSchema, false),
    responses: { 200: theWorkflow },
    errors: [400, 409],
  },
  resumeWorkflow: {
    ...action,
    path: `${API}/workflows/{id}/resume`,
    summary: 'Resume a paused workflow where it stopped',
    body: jsonBody(EmptyRequestSchema, false),
    responses: { 200: theWorkflow },
    errors: [400, 409],
  },
});
