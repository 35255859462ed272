import { expectedStatus } from './invariants';
import type { AgentState, PlanStepInfo } from './types';

/**
 * The plan as GET /workflows/{id}/plan shows it, derived from the phase: done before N, running at N
 * while executing, pending after; all done when completed; all pending while planning.
 */
export function planFromState(state: AgentState): PlanStepInfo[] {
  return state.steps.map((step, index) => ({
    index,
    title: step.title,
    description: step.description,
    status: expectedStatus(state, index),
  }));
}
