import { queryKeys } from '../../lib/query-keys';

/**
 * The run page's own queries, under the workflow's prefix (so a resubscription reloads them). The
 * record and plan are stored with the live position their load began at, a shape of their own, so
 * they do not share keys with plain workflow queries elsewhere in the app.
 */
export const runKeys = {
  record: (workflowId: string) => [...queryKeys.workflowAll(workflowId), 'run-record'] as const,
  plan: (workflowId: string) => [...queryKeys.workflowAll(workflowId), 'run-plan'] as const,
  activity: (workflowId: string) => [...queryKeys.workflowAll(workflowId), 'activity'] as const,
  /** the plan as it was when feedback came at this time */
  planBefore: (workflowId: string, feedbackTs: string) =>
    [...queryKeys.workflowAll(workflowId), 'plan-before', feedbackTs] as const,
  usage: (workflowId: string) => [...queryKeys.workflowAll(workflowId), 'llm-usage'] as const,
  /** keyed by the status too: a run that goes back to `pending` looks its timers up again */
  timers: (workflowId: string, status: string) => [...queryKeys.workflowAll(workflowId), 'timers', status] as const,
};
