import { executingAt, expectConsistent, frozen, plannedSteps } from '../test/support';
import { AgentTransitionError } from './errors';
import { firstMismatch, revisePlan } from './revise';
import { advanceStep, askUser, initialState } from './transitions';

const completedOf = (total: number) => advanceStep(executingAt(total - 1, total)).state;

describe('firstMismatch', () => {
  it('compares on title and description', () => {
    const old = plannedSteps(3);
    expect(firstMismatch(old, old)).toBe(3);
    expect(firstMismatch(old, [old[0]!, { ...old[1]!, description: 'other' }])).toBe(1);
    expect(firstMismatch(old, [{ ...old[0]!, title: 'other' }])).toBe(0);
    expect(firstMismatch(old, old.slice(0, 2))).toBe(2);
  });
});

describe('revisePlan', () => {
  it('keeps done steps before the first mismatch and re-runs everything from it', () => {
    const before = frozen(executingAt(3, 4));
    const newPlan = [...plannedSteps(2), { title: 'new', description: 'n' }, ...plannedSteps(4).slice(3)];
    const { state, firstChangedIndex, changes } = revisePlan(before, newPlan);
    expect(firstChangedIndex).toBe(2);
    expect(state.phase).toEqual({ kind: 'executing', step: 2 });
    expect(state.steps.map((s) => [s.title, s.status, s.summary])).toEqual([
      ['step 0', 'done', 'finished 0'],
      ['step 1', 'done', 'finished 1'],
      ['new', 'running', undefined],
      ['step 3', 'pending', undefined],
    ]);
    expect(changes).toEqual([
      { index: 2, title: 'new', from: 'done', to: 'running' },
      { index: 3, title: 'step 3', from: 'running', to: 'pending' },
    ]);
    expectConsistent(state);
  });

  it('resumes at the current step when the mismatch lies after it', () => {
    const newPlan = [...plannedSteps(3), { title: 'extra', description: 'x' }];
    const { state, firstChangedIndex, changes } = revisePlan(frozen(executingAt(1, 3)), newPlan);
    expect(firstChangedIndex).toBe(3);
    expect(state.phase).toEqual({ kind: 'executing', step: 1 });
    expect(changes).toEqual([{ index: 3, title: 'extra', from: null, to: 'pending' }]);
  });

  it('leaves a completed state completed when the plan is identical', () => {
    const before = frozen(completedOf(2));
    const { state, firstChangedIndex, changes } = revisePlan(before, plannedSteps(2));
    expect(state).toEqual(before);
    expect(firstChangedIndex).toBe(2);
    expect(changes).toEqual([]);
  });

  it('reopens a completed workflow for steps appended to its plan', () => {
    const { state } = revisePlan(frozen(completedOf(2)), plannedSteps(3));
    expect(state.phase).toEqual({ kind: 'executing', step: 2 });
    expect(state.steps.map((s) => s.status)).toEqual(['done', 'done', 'running']);
  });

  it('completes when the new plan drops every step not yet done', () => {
    const { state, firstChangedIndex, changes } = revisePlan(frozen(executingAt(2, 4)), plannedSteps(2));
    expect(firstChangedIndex).toBe(2);
    expect(state.phase).toEqual({ kind: 'completed' });
    expect(state.steps).toHaveLength(2);
    expect(changes).toEqual([]);
  });

  it('starts a plan from the planning phase like submitPlan', () => {
    const { state, firstChangedIndex } = revisePlan(initialState(), plannedSteps(2));
    expect(firstChangedIndex).toBe(0);
    expect(state.phase).toEqual({ kind: 'executing', step: 0 });
  });

  it('keeps the memo', () => {
    const before = { ...executingAt(1, 2), memo: ['port 3000'] };
    expect(revisePlan(before, plannedSteps(1, 'other')).state.memo).toEqual(['port 3000']);
  });

  it.each([
    ['an empty plan', () => revisePlan(executingAt(0, 2), []), 'empty_plan'],
    [
      'a revision while waiting for the user',
      () => revisePlan(askUser(executingAt(0, 2), 'q').state, plannedSteps(2)),
      'waiting_for_user',
    ],
  ])('rejects %s', (_name, run, code) => {
    expect(run).toThrow(AgentTransitionError);
    expect(run).toThrow(expect.objectContaining({ code }));
  });
});
