export { WorkflowEngine, type Applied, type ActionParts, type WorkerBatch } from './engine';
export { transitionParts } from './transition-parts';
export type { ServerLogEntry } from './server-log-entry';
export { choicesOf, NO_QUESTION_OPTIONS, notAChoice, questionOptionFields, quotedChoices } from './question-options';
export { EngineBus, type EngineEvents, type Transitioned } from './bus';
export { fanOutTransitions, forgetStaleRuns } from './effects';
export { decide, FINISHED, UNFINISHED, RULES, type Decision, type RunEvent, type RunState } from './state-machine';
export { planWorkerStatus, planWorkerTitle, type PlannedEvent, type RunChanges, type RunRow } from './worker-updates';
