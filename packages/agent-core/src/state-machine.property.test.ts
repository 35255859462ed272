import fc from 'fast-check';
import { AgentTransitionError } from './errors';
import { planFromState } from './plan';
import { revisePlan } from './revise';
import { fromSnapshot, toSnapshot } from './snapshot';
import { advanceStep, answerUser, askUser, initialState, saveMemo, submitPlan } from './transitions';
import type { AgentState, StepStatus, StepStatusChange, Transition } from './types';
import { eventsArb, expectConsistent, type AgentEvent } from '../test/support';

const RUNS = { numRuns: 1500 };

/** Independent legality oracle: when each event may happen. */
function isLegal(state: AgentState, event: AgentEvent): boolean {
  const waiting = state.pendingQuestion !== null;
  switch (event.kind) {
    case 'submit':
      return !waiting && state.phase.kind === 'planning';
    case 'advance':
      return !waiting && state.phase.kind === 'executing';
    case 'memo':
    case 'ask':
      return !waiting && state.phase.kind !== 'completed';
    case 'answer':
      return waiting;
    case 'revise':
      return !waiting;
  }
}

function apply(state: AgentState, event: AgentEvent): Transition {
  switch (event.kind) {
    case 'submit':
      return submitPlan(state, event.steps);
    case 'advance':
      return advanceStep(state, event.summary);
    case 'memo':
      return saveMemo(state, event.note);
    case 'ask':
      return askUser(state, event.question);
    case 'answer':
      return answerUser(state, event.answer);
    case 'revise':
      return revisePlan(state, event.steps);
  }
}

/** Old statuses with the reported changes applied must give exactly the new statuses. */
function replay(before: AgentState, after: AgentState, changes: StepStatusChange[]): (StepStatus | undefined)[] {
  const statuses: (StepStatus | undefined)[] = after.steps.map((_, i) => before.steps[i]?.status);
  for (const change of changes) {
    expect(change.from).toBe(before.steps[change.index]?.status ?? null);
    expect(change.title).toBe(after.steps[change.index]?.title);
    statuses[change.index] = change.to;
  }
  return statuses;
}

function checkStep(before: AgentState, event: AgentEvent): AgentState {
  const snapshotBefore = JSON.stringify(before);
  if (!isLegal(before, event)) {
    expect(() => apply(before, event)).toThrow(AgentTransitionError);
    expect(JSON.stringify(before)).toBe(snapshotBefore);
    return before;
  }
  const { state, changes } = apply(before, event);
  expect(JSON.stringify(before)).toBe(snapshotBefore);
  expectConsistent(state);
  expect(replay(before, state, changes)).toEqual(state.steps.map((s) => s.status));
  // an index not reported is the same step as before
  const reported = new Set(changes.map((c) => c.index));
  state.steps.forEach((step, i) => {
    if (reported.has(i)) return;
    const old = before.steps[i];
    expect([old?.title, old?.description, old?.status]).toEqual([step.title, step.description, step.status]);
  });
  return state;
}

describe('state machine properties', () => {
  it('legal events keep the state consistent, report the exact step diff, and illegal ones throw', () => {
    fc.assert(
      fc.property(eventsArb, (events) => {
        let state = initialState();
        for (const event of events) state = checkStep(state, event);
      }),
      RUNS,
    );
  });

  it('every reachable state survives a snapshot round trip through JSON', () => {
    fc.assert(
      fc.property(eventsArb, (events) => {
        let state = initialState();
        for (const event of events) {
          if (isLegal(state, event)) state = apply(state, event).state;
          expect(fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))))).toEqual(state);
        }
      }),
      RUNS,
    );
  });

  it('planFromState agrees with the step statuses of every reachable state', () => {
    fc.assert(
      fc.property(eventsArb, (events) => {
        let state = initialState();
        for (const event of events) if (isLegal(state, event)) state = apply(state, event).state;
        expect(planFromState(state).map((s) => s.status)).toEqual(state.steps.map((s) => s.status));
        expect(planFromState(state).map((s) => s.index)).toEqual(state.steps.map((_, i) => i));
      }),
      RUNS,
    );
  });
});
