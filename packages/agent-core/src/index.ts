export type {
  AgentPhase,
  AgentState,
  PlannedStep,
  PlanStepInfo,
  SnapshotWire,
  Step,
  StepStatus,
  StepStatusChange,
  Transition,
} from './types';
export { AgentTransitionError, SnapshotError, type AgentTransitionErrorCode } from './errors';
export { stateProblem } from './invariants';
export { diffSteps } from './diff';
export { initialState, submitPlan, advanceStep, saveMemo, askUser, answerUser } from './transitions';
export { revisePlan, firstMismatch, type Revision } from './revise';
export { planFromState } from './plan';
export { projectPlan, planView, type PlanView, type ShownStep, type StepDisplay } from './plan-view';
export { toSnapshot, fromSnapshot } from './snapshot';
