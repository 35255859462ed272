import fc from 'fast-check';
import { revisePlan } from './revise';
import { advanceStep, answerUser, askUser, initialState, saveMemo, submitPlan } from './transitions';
import type { AgentState } from './types';
import { expectConsistent, planArb } from '../test/support';

const RUNS = { numRuns: 1500 };

/** A reachable, non-waiting state: some plan, some steps done, maybe revised before. */
const stateArb: fc.Arbitrary<AgentState> = fc
  .record({
    plan: fc.option(planArb, { nil: undefined }),
    advances: fc.nat({ max: 7 }),
    memo: fc.array(fc.constantFrom('port 3000', 'use Go'), { maxLength: 2 }),
    asked: fc.boolean(),
  })
  .map(({ plan, advances, memo, asked }) => {
    let state = initialState();
    for (const note of memo) state = saveMemo(state, note).state;
    if (plan === undefined) return state;
    state = submitPlan(state, plan).state;
    for (let i = 0; i < advances && state.phase.kind === 'executing'; i++) state = advanceStep(state, `s${i}`).state;
    if (asked && state.phase.kind !== 'completed') state = answerUser(askUser(state, 'q').state, 'a').state;
    return state;
  });

describe('revisePlan properties', () => {
  it('keeps steps before the first mismatch and re-runs every step from it', () => {
    fc.assert(
      fc.property(stateArb, planArb, (before, newPlan) => {
        const { state, firstChangedIndex: k, changes } = revisePlan(before, newPlan);
        expectConsistent(state);
        expect(state.memo).toEqual(before.memo);
        expect(state.steps.map((s) => [s.title, s.description])).toEqual(newPlan.map((s) => [s.title, s.description]));
        // the mismatch really is the first one
        for (let i = 0; i < k; i++)
          expect(newPlan[i]).toEqual({ title: before.steps[i]?.title, description: before.steps[i]?.description });
        if (k < newPlan.length && k < before.steps.length) {
          expect(newPlan[k]).not.toEqual({ title: before.steps[k]?.title, description: before.steps[k]?.description });
        }
        // before it: untouched, summaries included
        expect(state.steps.slice(0, k)).toEqual(before.steps.slice(0, k));
        // from it onward: not done, no summary, and the loop resumes at or before it
        for (const step of state.steps.slice(k)) {
          expect(step.status).not.toBe('done');
          expect(step.summary).toBeUndefined();
        }
        if (state.phase.kind === 'executing') expect(state.phase.step).toBeLessThanOrEqual(k);
        else expect(state.steps.every((s) => s.status === 'done')).toBe(true);
        // changes name exactly the indices whose step differs
        const differs = state.steps
          .map((s, i) => i)
          .filter((i) => JSON.stringify(pick(state.steps[i])) !== JSON.stringify(pick(before.steps[i])));
        expect(changes.map((c) => c.index)).toEqual(differs);
      }),
      RUNS,
    );
  });

  it('changes nothing when the plan is unchanged', () => {
    fc.assert(
      fc.property(stateArb, (before) => {
        fc.pre(before.steps.length > 0);
        const same = before.steps.map(({ title, description }) => ({ title, description }));
        const { state, firstChangedIndex, changes } = revisePlan(before, same);
        expect(state).toEqual(before);
        expect(firstChangedIndex).toBe(before.steps.length);
        expect(changes).toEqual([]);
      }),
      RUNS,
    );
  });
});

function pick(step: AgentState['steps'][number] | undefined) {
  return step && { title: step.title, description: step.description, status: step.status };
}
