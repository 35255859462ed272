export { Outbox, type OutboxDeps, type OutboxSettings } from './outbox';
export { outboxEventOf, type MappedEvent } from './map';
export {
  OUTBOX_EVENT_TYPES,
  outboxBatch,
  type OutboxBatch,
  type OutboxEvent,
  type OutboxEventType,
  type OutboxHandler,
} from './types';
export { backoffMs, dueMoment, keepLeased, nudgeOnClusterEvents, Poller } from './poller';
