import type { ExecutionLogEntry as LogRow } from '@svc/db';
import type { LogEntryUpdateData } from '@svc/protocol';
import { outputLineTimesColumn, outputObjectColumns, presentLogEntry } from '../wire/logs';
import { toStoredEvent, type EventRecord, type NewEvent, type StoredEvent } from './types';

/** What a log entry update's `workflow_update` row keeps besides the update, to rebuild its `log_entry` event. */
interface LogEntryKeys {
  id: string;
  seq: number;
  revision: number;
}

interface StoredLogEntryUpdate {
  kind: 'log_entry';
  data: LogEntryUpdateData;
  entry: LogEntryKeys;
}

/**
 * A log entry update's two events, `workflow_update` (what the worker sent) and `log_entry` (the
 * presented row), held in one `events` row: the second repeated the first's content (issue 11), so
 * it takes its seq but is rebuilt from that row on replay (`eventsOfRow`).
 */
export function logEntryEvents(data: LogEntryUpdateData, row: LogRow): NewEvent[] {
  const stored: StoredLogEntryUpdate = {
    kind: 'log_entry',
    data,
    entry: { id: row.id, seq: row.seq, revision: row.revision },
  };
  return [
    { type: 'workflow_update', data: { kind: 'log_entry', data }, stored },
    { type: 'log_entry', data: presentLogEntry(row), derived: true },
  ];
}

/** The events a stored row stands for, in seq order: itself, or a log entry update's pair. */
export function eventsOfRow(row: EventRecord, projectId: string): StoredEvent[] {
  const event = toStoredEvent(row, projectId);
  const stored = row.data as Partial<StoredLogEntryUpdate> | null;
  if (row.type !== 'workflow_update' || stored?.kind !== 'log_entry' || !stored.entry || !stored.data) return [event];
  const { duration_ms, output_object, output_line_times, ...update } = stored.data;
  const logRow: LogRow = {
    ...update,
    ...stored.entry,
    workflow_id: row.workflow_id,
    step_index: update.step_index ?? null,
    tool_input: update.tool_input as LogRow['tool_input'],
    duration_ms: duration_ms ?? null,
    ...outputObjectColumns({ output_object }),
    ...outputLineTimesColumn({ output_line_times }),
    created_at: row.created_at,
  };
  return [
    { ...event, data: { kind: 'log_entry', data: stored.data } },
    { ...event, type: 'log_entry', seq: row.seq + 1, data: presentLogEntry(logRow) },
  ];
}
