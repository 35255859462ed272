import type { Prisma, Workflow } from '@svc/db';
import type { NewEvent } from '../events';
import { presentLogEntry } from '../wire/logs';

/** A log entry the server writes itself, not a worker's tool call (e.g. a question its deadline answered). */
export interface ServerLogEntry {
  tool_name: string;
  tool_input: Prisma.InputJsonValue;
  output: string;
  step_index: number | null;
}

/**
 * Writes the entry's row in the transition's transaction and returns its `log_entry` event, the one after
 * the transition's `before` events: a row's seq is its event's, as for a worker's entry. The transition
 * wrote the workflow row in this transaction, so its `last_event_seq` holds until the commit.
 */
export async function serverLogEntryEvent(
  tx: Prisma.TransactionClient,
  after: Workflow,
  before: number,
  entry: ServerLogEntry,
): Promise<NewEvent> {
  const row = await tx.executionLogEntry.create({
    data: { ...entry, workflow_id: after.id, seq: after.last_event_seq + before + 1, revision: after.plan_revision },
  });
  return { type: 'log_entry', data: presentLogEntry(row) };
}
