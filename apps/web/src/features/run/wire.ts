import { WorkflowActionEventDataSchema, type WorkflowActionEventData } from '@svc/protocol';

/** One `workflow_action` event as the page keeps it: the data plus its seq and time. */
export interface WorkflowAction extends WorkflowActionEventData {
  seq: number;
  ts: string;
}

/** A `workflow_action` envelope (live or replayed), or null for any other event. */
export function workflowActionOf(event: {
  type: string;
  seq: number;
  ts: string;
  data: unknown;
}): WorkflowAction | null {
  if (event.type !== 'workflow_action') return null;
  const data = WorkflowActionEventDataSchema.safeParse(event.data);
  return data.success ? { ...data.data, seq: event.seq, ts: event.ts } : null;
}
