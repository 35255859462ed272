import { diffSteps } from './diff';
import { AgentTransitionError } from './errors';
import { describePhase, expectedStatus } from './invariants';
import type { AgentPhase, AgentState, PlannedStep, Step, Transition } from './types';

export function initialState(): AgentState {
  return { phase: { kind: 'planning' }, steps: [], memo: [], pendingQuestion: null };
}

/** Steps with the statuses `phase` dictates; the only way new states are built, so they stay consistent. */
export function settle(phase: AgentPhase, steps: readonly Step[]): Step[] {
  return steps.map((step, index) => ({ ...step, status: expectedStatus({ phase }, index) }));
}

function transition(before: AgentState, after: AgentState): Transition {
  return { state: after, changes: diffSteps(before.steps, after.steps) };
}

export function assertNotWaiting(state: AgentState, action: string): void {
  if (state.pendingQuestion !== null) {
    throw new AgentTransitionError('waiting_for_user', `cannot ${action} while waiting for the user's answer`);
  }
}

/** Checks a plan the LLM wrote: non-empty, each step with a non-blank title and a text description. */
export function checkPlan(steps: readonly PlannedStep[]): Step[] {
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new AgentTransitionError('empty_plan', 'a plan needs at least one step');
  }
  return steps.map((step, index) => {
    const title: unknown = step?.title;
    const description: unknown = step?.description;
    if (typeof title !== 'string' || title.trim() === '') {
      throw new AgentTransitionError('invalid_step', `step ${index} needs a title`);
    }
    if (typeof description !== 'string') {
      throw new AgentTransitionError('invalid_step', `step ${index} needs a description`);
    }
    return { title, description, status: 'pending' };
  });
}

/** Planning -> Executing(0): every step pending, the first running. */
export function submitPlan(state: AgentState, steps: readonly PlannedStep[]): Transition {
  assertNotWaiting(state, 'submit a plan');
  if (state.phase.kind !== 'planning') {
    throw new AgentTransitionError('not_planning', `cannot submit a plan while ${describePhase(state)}`);
  }
  const phase: AgentPhase = { kind: 'executing', step: 0 };
  return transition(state, { ...state, phase, steps: settle(phase, checkPlan(steps)) });
}

/** Executing(N) -> Executing(N+1), or Completed after the last step; step N becomes done. */
export function advanceStep(state: AgentState, summary?: string): Transition {
  assertNotWaiting(state, 'advance');
  if (state.phase.kind !== 'executing') {
    throw new AgentTransitionError('not_executing', `cannot advance while ${describePhase(state)}`);
  }
  const current = state.phase.step;
  const next = current + 1;
  const phase: AgentPhase = next < state.steps.length ? { kind: 'executing', step: next } : { kind: 'completed' };
  const steps = state.steps.map((step, index) =>
    index === current && summary !== undefined ? { ...step, summary } : step,
  );
  return transition(state, { ...state, phase, steps: settle(phase, steps) });
}

function assertActive(state: AgentState, action: string): void {
  if (state.phase.kind === 'completed') {
    throw new AgentTransitionError('already_completed', `cannot ${action}: the agent has completed`);
  }
}

/** Keeps a note for later steps; legal while planning or executing. */
export function saveMemo(state: AgentState, note: string): Transition {
  assertNotWaiting(state, 'save a memo');
  assertActive(state, 'save a memo');
  if (typeof note !== 'string' || note.trim() === '') {
    throw new AgentTransitionError('empty_memo', 'a memo needs text');
  }
  return { state: { ...state, memo: [...state.memo, note] }, changes: [] };
}

/** Puts a question to the user (workflow status waiting_user); legal while planning or executing. */
export function askUser(state: AgentState, question: string): Transition {
  assertNotWaiting(state, 'ask another question');
  assertActive(state, 'ask the user');
  if (typeof question !== 'string' || question.trim() === '') {
    throw new AgentTransitionError('empty_question', 'a question needs text');
  }
  return { state: { ...state, pendingQuestion: question }, changes: [] };
}

/**
 * Clears the open question. The answer is also kept as a memo, because each step runs in a fresh
 * context and later steps (or a worker resuming from a snapshot) must still know it.
 */
export function answerUser(state: AgentState, answer: string): Transition {
  if (state.pendingQuestion === null) {
    throw new AgentTransitionError('not_waiting', 'there is no open question to answer');
  }
  const memo = [...state.memo, `Q: ${state.pendingQuestion}\nA: ${answer}`];
  return { state: { ...state, memo, pendingQuestion: null }, changes: [] };
}
