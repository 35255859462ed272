// Shared by unit and property tests: plan builders, fast-check arbitraries and the invariant check.
import fc from 'fast-check';
import { stateProblem } from '../src/invariants';
import { submitPlan, initialState, advanceStep } from '../src/transitions';
import type { AgentState, PlannedStep } from '../src/types';

export function plannedSteps(count: number, prefix = 'step'): PlannedStep[] {
  return Array.from({ length: count }, (_, i) => ({ title: `${prefix} ${i}`, description: `do ${prefix} ${i}` }));
}

/** A state executing step `step` of a plan of `total` steps, reached through legal transitions. */
export function executingAt(step: number, total: number): AgentState {
  let state = submitPlan(initialState(), plannedSteps(total)).state;
  for (let i = 0; i < step; i++) state = advanceStep(state, `finished ${i}`).state;
  return state;
}

export function expectConsistent(state: AgentState): void {
  expect(stateProblem(state)).toBeNull();
}

/** Deeply frozen copy, so a test fails if a transition mutates its input. */
export function frozen<T>(value: T): T {
  const copy = structuredClone(value);
  const freeze = (v: unknown): void => {
    if (typeof v === 'object' && v !== null) {
      Object.freeze(v);
      Object.values(v).forEach(freeze);
    }
  };
  freeze(copy);
  return copy;
}

// Few distinct titles so that generated plans often share prefixes with earlier ones.
const text = fc.constantFrom('a', 'b', 'c', 'setup', 'build', 'test');
export const plannedStepArb = fc.record({ title: text, description: text });
export const planArb = fc.array(plannedStepArb, { minLength: 1, maxLength: 6 });

export type AgentEvent =
  | { kind: 'submit'; steps: PlannedStep[] }
  | { kind: 'advance'; summary: string | undefined }
  | { kind: 'memo'; note: string }
  | { kind: 'ask'; question: string }
  | { kind: 'answer'; answer: string }
  | { kind: 'revise'; steps: PlannedStep[] };

export const eventArb: fc.Arbitrary<AgentEvent> = fc.oneof(
  fc.record({ kind: fc.constant('submit' as const), steps: planArb }),
  fc.record({ kind: fc.constant('advance' as const), summary: fc.option(fc.string(), { nil: undefined }) }),
  fc.record({ kind: fc.constant('advance' as const), summary: fc.constant(undefined) }),
  fc.record({ kind: fc.constant('memo' as const), note: fc.string({ minLength: 1 }).map((s) => `n${s}`) }),
  fc.record({ kind: fc.constant('ask' as const), question: fc.constant('which port?') }),
  fc.record({ kind: fc.constant('answer' as const), answer: fc.string() }),
  fc.record({ kind: fc.constant('revise' as const), steps: planArb }),
);

export const eventsArb = fc.array(eventArb, { maxLength: 40 });
