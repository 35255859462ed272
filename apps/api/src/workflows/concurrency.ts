import type { Db, Workflow } from '@svc/db';
import type { CreateWorkflowRequest } from '@svc/protocol';
import { unfinishedWhere } from './status';

/** A new run's priority and concurrency columns (decision 0037): a key's mode defaults to `queue`. */
export function concurrencyColumns(
  body: CreateWorkflowRequest,
): Pick<Workflow, 'priority' | 'concurrency_key' | 'concurrency_mode'> {
  const key = body.concurrency_key ?? null;
  return {
    priority: body.priority ?? 0,
    concurrency_key: key,
    concurrency_mode: key === null ? null : (body.concurrency_mode ?? 'queue'),
  };
}

/** The unfinished runs a `cancel_in_progress` run replaces: its key's runs created before it. */
export function supersededBy(db: Db, workflow: Workflow): Promise<Workflow[]> {
  if (workflow.concurrency_mode !== 'cancel_in_progress' || workflow.concurrency_key === null)
    return Promise.resolve([]);
  return db.workflow.findMany({
    where: {
      project_id: workflow.project_id,
      concurrency_key: workflow.concurrency_key,
      id: { not: workflow.id },
      created_at: { lte: workflow.created_at },
      ...unfinishedWhere,
    },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
  });
}

/** What the cancel's `workflow_action` event says. */
export const supersededReason = (workflow: Workflow): string =>
  `cancelled by run #${workflow.number}: concurrency key ${JSON.stringify(workflow.concurrency_key)} cancels runs in progress`;
