import type { Prisma } from '@svc/db';
import { TERMINAL_WORKFLOW_STATUSES, type WorkflowStatus } from '@svc/protocol';

/** The one "unfinished" predicate: a live workflow that has not reached a final status. */
export const unfinishedWhere = {
  status: { notIn: [...TERMINAL_WORKFLOW_STATUSES] },
  deleted_at: null,
} satisfies Prisma.WorkflowWhereInput;

export function isUnfinished(status: string): boolean {
  return !TERMINAL_WORKFLOW_STATUSES.includes(status as WorkflowStatus);
}
