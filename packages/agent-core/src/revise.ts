import { diffSteps } from './diff';
import { assertNotWaiting, checkPlan, settle } from './transitions';
import type { AgentPhase, AgentState, PlannedStep, Step, StepStatusChange } from './types';

export interface Revision {
  /** the state to resume the loop from */
  state: AgentState;
  /** index of the first step whose (title, description) differs; the new plan's length when none does */
  firstChangedIndex: number;
  changes: StepStatusChange[];
}

/** Index of the first position where the plans differ on (title, description). */
export function firstMismatch(oldSteps: readonly PlannedStep[], newSteps: readonly PlannedStep[]): number {
  const shared = Math.min(oldSteps.length, newSteps.length);
  for (let i = 0; i < shared; i++) {
    const a = oldSteps[i]!;
    const b = newSteps[i]!;
    if (a.title !== b.title || a.description !== b.description) return i;
  }
  return shared;
}

/**
 * Applies a revised plan (user feedback). Steps before the first mismatch keep their status and
 * summary; every step from it onward is invalidated (pending, no summary). The loop resumes at the
 * first step not done (running), or Completed when every kept step is done. Memo is kept.
 */
export function revisePlan(state: AgentState, newSteps: readonly PlannedStep[]): Revision {
  assertNotWaiting(state, 'revise the plan');
  const planned = checkPlan(newSteps);
  const firstChangedIndex = firstMismatch(state.steps, planned);
  const steps: Step[] = planned.map((step, index) => (index < firstChangedIndex ? state.steps[index]! : step));
  const resumeAt = steps.findIndex((step) => step.status !== 'done');
  const phase: AgentPhase = resumeAt === -1 ? { kind: 'completed' } : { kind: 'executing', step: resumeAt };
  const after: AgentState = { ...state, phase, steps: settle(phase, steps) };
  return { state: after, firstChangedIndex, changes: diffSteps(state.steps, after.steps) };
}
