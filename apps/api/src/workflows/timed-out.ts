import type { Db, Workflow } from '@svc/db';
import { choicesOf, type ServerLogEntry } from '../engine';

/** The log's name for a question its deadline answered (decision 0079). */
export const QUESTION_TIMEOUT_TOOL = 'question_timeout';

/**
 * The execution log entry of a question answered with its default at its deadline: in the step the run
 * waits in (the latest snapshot's; none while planning), so the log reads in order.
 */
export async function timedOutLogEntry(
  db: Db,
  workflow: Pick<Workflow, 'id' | 'question' | 'question_choices'>,
  answer: string,
  deadline: Date,
): Promise<ServerLogEntry> {
  const latest = await db.agentStateSnapshot.findFirst({
    where: { workflow_id: workflow.id },
    orderBy: { seq: 'desc' },
    select: { phase: true, current_step: true },
  });
  const choices = choicesOf(workflow);
  return {
    tool_name: QUESTION_TIMEOUT_TOOL,
    tool_input: {
      question: workflow.question ?? '',
      ...(choices ? { choices } : {}),
      default: answer,
      deadline: deadline.toISOString(),
    },
    output: `No answer came by the deadline (${deadline.toISOString()}): the question was answered with its default "${answer}".`,
    step_index: latest?.phase === 'executing' ? latest.current_step : null,
  };
}
