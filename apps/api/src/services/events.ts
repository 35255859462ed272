import { EventEmitter } from 'node:events';
import type { Db } from '@svc/db';
import type { BrowserEventType } from '@svc/protocol';

/** One event as browsers receive it (CONTRACT section 4 envelope). */
export interface StoredEvent {
  type: BrowserEventType;
  workflow_id?: string;
  /** absent only for installation-wide events (`worker_status`) */
  project_id?: string;
  seq: number;
  ts: string;
  data: unknown;
}

/**
 * The event stream: workflow events are stored with a per-workflow `seq` (so a reconnecting browser can
 * replay them) and then announced in-process; project events are announced only.
 */
export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor(private readonly db: Db) {
    this.emitter.setMaxListeners(0);
  }

  async publishWorkflowEvent(
    workflow: { id: string; project_id: string },
    type: BrowserEventType,
    data: unknown,
  ): Promise<StoredEvent> {
    const [stored] = await this.publishWorkflowEvents(workflow, [{ type, data }]);
    return stored!;
  }

  /** Stores several events of one workflow in one transaction, seqs in order. */
  async publishWorkflowEvents(
    workflow: { id: string; project_id: string },
    events: { type: BrowserEventType; data: unknown }[],
  ): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    const stored = await this.db.$transaction(async (tx) => {
      const { last_event_seq } = await tx.workflow.update({
        where: { id: workflow.id },
        data: { last_event_seq: { increment: events.length } },
        select: { last_event_seq: true },
      });
      const first = last_event_seq - events.length + 1;
      const now = new Date();
      const rows = events.map((event, i) => ({
        workflow_id: workflow.id,
        seq: first + i,
        type: event.type,
        data: event.data as object,
        created_at: now,
      }));
      await tx.event.createMany({ data: rows });
      return rows.map((row) => ({
        type: row.type as BrowserEventType,
        workflow_id: workflow.id,
        project_id: workflow.project_id,
        seq: row.seq,
        ts: now.toISOString(),
        data: row.data,
      }));
    });
    this.announce(stored);
    return stored;
  }

  publishProjectEvent(projectId: string, type: BrowserEventType, data: unknown): StoredEvent {
    return this.announceUnstored({ type, project_id: projectId, data });
  }

  /** Installation-wide events (`worker_status`): announced to every connected browser, not stored. */
  publishGlobalEvent(type: BrowserEventType, data: unknown): StoredEvent {
    return this.announceUnstored({ type, data });
  }

  /** Events outside a workflow's stream are not replayable: they carry seq 0. */
  private announceUnstored(event: Pick<StoredEvent, 'type' | 'project_id' | 'data'>): StoredEvent {
    const announced: StoredEvent = { ...event, seq: 0, ts: new Date().toISOString() };
    this.announce([announced]);
    return announced;
  }

  /** Announces events a caller stored in its own transaction (worker updates store theirs in batches). */
  announce(events: readonly StoredEvent[]): void {
    for (const event of events) this.emitter.emit('event', event);
  }

  /** Events of one workflow after `sinceSeq`, in order, for replay. */
  async eventsSince(workflowId: string, projectId: string, sinceSeq: number, limit = 1000): Promise<StoredEvent[]> {
    const rows = await this.db.event.findMany({
      where: { workflow_id: workflowId, seq: { gt: sinceSeq } },
      orderBy: { seq: 'asc' },
      take: limit,
    });
    return rows.map((row) => ({
      type: row.type as BrowserEventType,
      workflow_id: workflowId,
      project_id: projectId,
      seq: row.seq,
      ts: row.created_at.toISOString(),
      data: row.data,
    }));
  }

  subscribe(listener: (event: StoredEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
}
