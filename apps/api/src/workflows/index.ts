export { WorkflowLifecycle, type Created, type WorkflowLifecycleDeps } from './lifecycle';
export { actionEvent, type Actor } from './actor';
export { queueOnlySteering, type Steering, type TimerSchedule } from './steering';
export { isUnfinished, unfinishedWhere, UNFINISHED_STATUSES, type StatusChange } from './status';
export { WorkflowTransitions } from './transitions';
export { placeholderTitle, PLACEHOLDER_TITLE_MAX_BYTES } from './title';
