import type { NotificationEvent } from '@svc/protocol';

import type { OutboxEvent, OutboxEventType } from '../outbox';

/** The outbox's event (apps/api/src/outbox) as the `notifications` consumer gets it. */
export type RunOutboxEvent = OutboxEvent;

const KIND_BY_TYPE: Record<string, NotificationEvent> = {
  'run.waiting_for_input': 'waiting_for_input',
  'run.completed': 'completed',
  'run.failed': 'failed',
  'run.budget_reached': 'budget_reached',
};

/** The outbox event types anyone is notified of (the `notifications` consumer's claims). */
export const NOTIFIED_EVENT_TYPES = Object.keys(KIND_BY_TYPE) as OutboxEventType[];

/** The notification an outbox event is, or null for the events nobody is notified of. */
export const notificationKindOf = (type: string): NotificationEvent | null => KIND_BY_TYPE[type] ?? null;

/** Final outcomes: at most one per run attempt, so the throttle lets them through. */
export const isFinalKind = (kind: NotificationEvent) => kind === 'completed' || kind === 'failed';
