import type { UpdateBody, UpdateMessage } from '@svc/protocol';

/**
 * Updates waiting for the server's ack. Sequence numbers count per workflow from the `last_seq`
 * the server gave in its dispatch; an update stays here until acked, so a reconnect can send it
 * again (the server stores each (workflow_id, seq) once, so a resend is never stored twice).
 */
export class Outbox {
  private readonly lastSeq = new Map<string, number>();
  /** Insertion order is send order. */
  private readonly pending = new Map<string, UpdateMessage>();

  /** Continue numbering after `lastSeq` (never going back below a number already used here). */
  begin(workflowId: string, lastSeq: number): void {
    this.lastSeq.set(workflowId, Math.max(lastSeq, this.lastSeq.get(workflowId) ?? 0));
  }

  isTracking(workflowId: string): boolean {
    return this.lastSeq.has(workflowId);
  }

  add(workflowId: string, body: UpdateBody): UpdateMessage {
    const last = this.lastSeq.get(workflowId);
    if (last === undefined) throw new Error(`outbox: workflow ${workflowId} was not begun with its last_seq`);
    const seq = last + 1;
    this.lastSeq.set(workflowId, seq);
    const message = { type: 'update', workflow_id: workflowId, seq, ...body } as UpdateMessage;
    this.pending.set(key(workflowId, seq), message);
    return message;
  }

  /** The pending update with this number, if any. */
  get(workflowId: string, seq: number): UpdateMessage | undefined {
    return this.pending.get(key(workflowId, seq));
  }

  /**
   * Workflows with progress still to deliver (anything but a title): the worker still holds them, even
   * when their run has ended, until the server has stored what it reported.
   */
  workflowsInProgress(): string[] {
    const ids = new Set<string>();
    for (const update of this.pending.values()) if (isProgress(update)) ids.add(update.workflow_id);
    return [...ids];
  }

  /** Whether this workflow has progress still to deliver (see workflowsInProgress); stops at the first. */
  hasProgress(workflowId: string): boolean {
    for (const update of this.pending.values())
      if (update.workflow_id === workflowId && isProgress(update)) return true;
    return false;
  }

  /** Drops an acknowledged (or refused for good) update; false when it was not pending (a duplicate or stray ack). */
  ack(workflowId: string, seq: number): boolean {
    return this.pending.delete(key(workflowId, seq));
  }

  /** The unacknowledged updates, oldest first, without copying them (do not change the outbox meanwhile). */
  oldestFirst(): IterableIterator<UpdateMessage> {
    return this.pending.values();
  }

  /** Every unacknowledged update, oldest first. */
  unacked(): UpdateMessage[] {
    return [...this.pending.values()];
  }

  get size(): number {
    return this.pending.size;
  }
}

/** Everything but a title is progress: the run's record the server must have. */
const isProgress = (update: UpdateMessage): boolean => update.kind !== 'title';

/** The outbox's key of one update. */
export function key(workflowId: string, seq: number): string {
  return `${workflowId}\u0000${seq}`;
}
