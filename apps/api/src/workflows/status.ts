import type { Prisma } from '@svc/db';
import { TERMINAL_WORKFLOW_STATUSES, type WorkflowStatus } from '@svc/protocol';

/** Statuses a workflow can still leave: everything but completed, failed and cancelled. */
export const UNFINISHED_STATUSES: readonly WorkflowStatus[] = ['pending', 'planning', 'running', 'waiting_user'];

/** The one "unfinished" predicate: a live workflow that has not reached a final status. */
export const unfinishedWhere = {
  status: { notIn: [...TERMINAL_WORKFLOW_STATUSES] },
  deleted_at: null,
} satisfies Prisma.WorkflowWhereInput;

export function isUnfinished(status: string): boolean {
  return !TERMINAL_WORKFLOW_STATUSES.includes(status as WorkflowStatus);
}

/** What a status change writes besides the status. */
export interface StatusChange {
  status: WorkflowStatus;
  question?: string | null;
  error?: string | null;
}
