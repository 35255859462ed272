import type { NotificationEvent } from '@svc/protocol';

/**
 * The outbox's event as the notifications consumer reads it (apps/api/src/outbox, RULES interface):
 * structurally the outbox's `OutboxEvent`, so the consumer does not depend on more than these fields.
 */
export interface RunOutboxEvent {
  id: string;
  type: string;
  project_id: string;
  workflow_id: string;
  created_at: string;
  data: Record<string, unknown>;
}

const KIND_BY_TYPE: Record<string, NotificationEvent> = {
  'run.waiting_for_input': 'waiting_for_input',
  'run.completed': 'completed',
  'run.failed': 'failed',
  'run.budget_reached': 'budget_reached',
};

/** The notification an outbox event is, or null for the events nobody is notified of. */
export const notificationKindOf = (type: string): NotificationEvent | null => KIND_BY_TYPE[type] ?? null;

/** Final outcomes: at most one per run attempt, so the throttle lets them through. */
export const isFinalKind = (kind: NotificationEvent) => kind === 'completed' || kind === 'failed';
