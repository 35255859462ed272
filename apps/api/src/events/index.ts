export { EventStore, eventsSince, type EventBatch, type EventGroup } from './event-store';
export { LocalFanout, type EventFanout } from './fanout';
export { ClusterFanout } from './cluster-fanout';
export type { RawClient, TableRows } from './event-sql';
export { toStoredEvent, type NewEvent, type StoredEvent, type WorkflowRef } from './types';
export {
  WorkflowSubscription,
  SUBSCRIPTION_REPLAY_FAILED,
  SUBSCRIPTION_TOO_SLOW,
  type EventSubscriber,
} from './workflow-subscription';
export { envelope } from './envelope';
