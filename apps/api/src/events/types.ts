import type { BrowserEventType } from '@svc/protocol';

/** One event as browsers receive it (CONTRACT section 4 envelope). */
export interface StoredEvent {
  type: BrowserEventType;
  workflow_id?: string;
  /** absent only for installation-wide events (`worker_status`) */
  project_id?: string;
  /** the workflow's event seq; 0 for events outside a workflow's stream (not replayable) */
  seq: number;
  ts: string;
  data: unknown;
}

/** An event to append to a workflow's stream. */
export interface NewEvent {
  type: BrowserEventType;
  data: unknown;
  /** what its row stores instead of `data` (see stored-rows.ts) */
  stored?: unknown;
  /** takes its seq but has no row: replay rebuilds it from the event before it (see stored-rows.ts) */
  derived?: true;
}

export interface WorkflowRef {
  id: string;
  project_id: string;
}

/** A stored `events` row of a workflow, as the database returns it. */
export interface EventRecord {
  workflow_id: string;
  seq: number;
  type: string;
  data: unknown;
  created_at: Date;
}

/** The one row-to-wire mapping of workflow events (appended, replayed or fanned out alike). */
export function toStoredEvent(row: EventRecord, projectId: string): StoredEvent {
  return {
    type: row.type as BrowserEventType,
    workflow_id: row.workflow_id,
    project_id: projectId,
    seq: row.seq,
    ts: row.created_at.toISOString(),
    data: row.data,
  };
}
