import type { Logger } from 'pino';
import type { Workflow } from '@svc/db';
import type { WorkflowStatus } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { conflict, notFound } from '../../http/errors';

/** Statuses a workflow can still leave: everything but completed, failed and cancelled. */
export const UNFINISHED_STATUSES: readonly WorkflowStatus[] = ['pending', 'planning', 'running', 'waiting_user'];

export type WorkflowRef = Pick<Workflow, 'id' | 'project_id'>;

/** What a status change writes besides the status. */
export interface StatusChange {
  status: WorkflowStatus;
  question?: string | null;
  error?: string | null;
}

/**
 * Moves a live workflow to `change.status` only if its status is still one of `from` (one conditional
 * UPDATE, so two racing requests cannot both win); 409 `conflict` otherwise. Publishes the events.
 */
export async function transitionWorkflow(
  deps: AppDeps,
  workflow: WorkflowRef,
  from: readonly WorkflowStatus[],
  change: StatusChange,
  why: string,
): Promise<Workflow> {
  const { count } = await deps.db.workflow.updateMany({
    where: { id: workflow.id, deleted_at: null, status: { in: [...from] } },
    data: change,
  });
  const current = await deps.db.workflow.findFirst({ where: { id: workflow.id, deleted_at: null } });
  if (!current) throw notFound('workflow not found');
  if (count === 0) throw conflict(`${why} (status is ${current.status})`);
  await publishStatus(deps, workflow, change);
  return current;
}

/** The `workflow_status` event (stored, replayable) and the project's `workflow_updated` notice. */
export async function publishStatus(deps: AppDeps, workflow: WorkflowRef, change: StatusChange): Promise<void> {
  const data: { status: WorkflowStatus; question?: string | null; error?: string | null } = { status: change.status };
  if (change.question !== undefined) data.question = change.question;
  if (change.error !== undefined) data.error = change.error;
  await deps.events.publishWorkflowEvent(workflow, 'workflow_status', data);
  deps.events.publishProjectEvent(workflow.project_id, 'project_changed', {
    change: 'workflow_updated',
    workflow_id: workflow.id,
  });
}

/**
 * Hands work to the dispatcher without letting its failure undo what the database already says: the
 * stored status is the truth and the dispatcher re-reads it; a failed hand-off is only logged.
 */
export async function dispatchSafely(
  log: Logger,
  what: string,
  workflowId: string,
  call: () => Promise<void>,
): Promise<void> {
  try {
    await call();
  } catch (err) {
    log.error({ err, workflow_id: workflowId }, `dispatcher.${what} failed`);
  }
}
