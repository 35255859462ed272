export { WorkflowLifecycle, type Created, type WorkflowLifecycleDeps } from './lifecycle';
export { actionEvent, type Actor } from './actor';
export { RunBudgets, type RunBudgetsDeps } from './budgets';
export { queueOnlySteering, type Steering, type TimerSchedule } from './steering';
export { isUnfinished, unfinishedWhere } from './status';
export { placeholderTitle, PLACEHOLDER_TITLE_MAX_BYTES } from './title';
