import type { Prisma } from '@svc/db';
import type { NewEvent } from '../events';
import { NO_QUESTION_OPTIONS } from './question-options';
import { isFinished, type Decision } from './state-machine';

export type Applicable = Exclude<Decision, { kind: 'refuse' }>;

/**
 * What an applied decision writes: its columns, and its events (a move's `workflow_status` event, then
 * the action's event built with the plan revision the transition leaves).
 */
export function transitionParts(
  decision: Applicable,
  action: ((revision: number) => NewEvent) | undefined,
  revision: number,
  at: Date,
): { columns: Prisma.WorkflowUpdateManyMutationInput; events: NewEvent[] } {
  return {
    columns: statusColumns(decision, at),
    events: [...statusEvents(decision), ...(action ? [action(revision)] : [])],
  };
}

/** The columns a decision writes: the status, its cleared columns, and the finish time. */
export function statusColumns(decision: Applicable, at: Date): Prisma.WorkflowUpdateManyMutationInput {
  if (decision.kind === 'stay') return {};
  const columns: Prisma.WorkflowUpdateManyMutationInput = {
    status: decision.to,
    // A final status stamps finished_at; leaving one (retry, feedback) clears it.
    finished_at: isFinished(decision.to) ? at : null,
  };
  for (const column of decision.clears) columns[column] = null;
  // A question's choices, default and deadline go with it.
  if (decision.clears.includes('question')) Object.assign(columns, NO_QUESTION_OPTIONS);
  return columns;
}

/** The `workflow_status` event of a move: the status and the columns it cleared. */
export function statusEvents(decision: Applicable): NewEvent[] {
  if (decision.kind === 'stay') return [];
  const data: Record<string, unknown> = { status: decision.to };
  for (const column of decision.clears) data[column] = null;
  return [{ type: 'workflow_status', data }];
}
