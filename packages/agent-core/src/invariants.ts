import type { AgentState, StepStatus } from './types';

/** The status every step must have in `state.phase`; the single rule the whole package relies on. */
export function expectedStatus(state: Pick<AgentState, 'phase'>, index: number): StepStatus {
  switch (state.phase.kind) {
    case 'planning':
      return 'pending';
    case 'completed':
      return 'done';
    case 'executing':
      return index < state.phase.step ? 'done' : index === state.phase.step ? 'running' : 'pending';
  }
}

/**
 * Describes the first way `state` is not reachable, or returns null when it is: at most one running
 * step, equal to phase.step; every step before it done, every one after it pending; completed => all
 * done; planning => all pending; no open question once completed.
 */
export function stateProblem(state: AgentState): string | null {
  const { phase, steps } = state;
  if (phase.kind === 'executing') {
    if (!Number.isInteger(phase.step) || phase.step < 0 || phase.step >= steps.length) {
      return `current step ${phase.step} is outside the plan of ${steps.length} steps`;
    }
  }
  if (phase.kind === 'completed' && state.pendingQuestion !== null) {
    return 'a completed agent cannot wait for an answer';
  }
  for (const [index, step] of steps.entries()) {
    const expected = expectedStatus(state, index);
    if (step.status !== expected) {
      return `step ${index} is ${step.status} but must be ${expected} while ${describePhase(state)}`;
    }
  }
  return null;
}

export function describePhase(state: Pick<AgentState, 'phase'>): string {
  return state.phase.kind === 'executing' ? `executing step ${state.phase.step}` : state.phase.kind;
}
