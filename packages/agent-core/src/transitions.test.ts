import { executingAt, expectConsistent, frozen, plannedSteps } from '../test/support';
import { AgentTransitionError } from './errors';
import { advanceStep, answerUser, askUser, initialState, saveMemo, submitPlan } from './transitions';
import type { AgentState, PlannedStep } from './types';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    if (err instanceof AgentTransitionError) return err.code;
    throw err;
  }
  return undefined;
}

const completed = (): AgentState => advanceStep(executingAt(0, 1)).state;
const waiting = (): AgentState => askUser(executingAt(1, 3), 'which port?').state;

describe('initialState', () => {
  it('starts planning with no steps, memo or question', () => {
    expect(initialState()).toEqual({ phase: { kind: 'planning' }, steps: [], memo: [], pendingQuestion: null });
  });
});

describe('submitPlan', () => {
  it('moves Planning to Executing(0) with the first step running and the rest pending', () => {
    const { state, changes } = submitPlan(frozen(initialState()), plannedSteps(3));
    expect(state.phase).toEqual({ kind: 'executing', step: 0 });
    expect(state.steps.map((s) => s.status)).toEqual(['running', 'pending', 'pending']);
    expect(changes).toEqual([
      { index: 0, title: 'step 0', from: null, to: 'running' },
      { index: 1, title: 'step 1', from: null, to: 'pending' },
      { index: 2, title: 'step 2', from: null, to: 'pending' },
    ]);
    expectConsistent(state);
  });

  it('keeps memos written while planning', () => {
    const planning = saveMemo(initialState(), 'user prefers Go').state;
    expect(submitPlan(planning, plannedSteps(1)).state.memo).toEqual(['user prefers Go']);
  });

  it.each([
    ['an empty plan', initialState, [], 'empty_plan'],
    ['a step without title', initialState, [{ title: ' ', description: 'd' }], 'invalid_step'],
    ['a step without description', initialState, [{ title: 't' } as PlannedStep], 'invalid_step'],
    ['a second plan while executing', () => executingAt(0, 2), plannedSteps(1), 'not_planning'],
    ['a plan after completion', completed, plannedSteps(1), 'not_planning'],
    [
      'a plan while waiting for the user',
      () => askUser(initialState(), 'q').state,
      plannedSteps(1),
      'waiting_for_user',
    ],
  ])('rejects %s', (_name, makeState, steps, code) => {
    expect(codeOf(() => submitPlan(frozen(makeState()), steps as PlannedStep[]))).toBe(code);
  });
});

describe('advanceStep', () => {
  it('marks step N done with its summary and starts step N+1', () => {
    const { state, changes } = advanceStep(frozen(executingAt(0, 3)), 'repo created');
    expect(state.phase).toEqual({ kind: 'executing', step: 1 });
    expect(state.steps[0]).toMatchObject({ status: 'done', summary: 'repo created' });
    expect(changes).toEqual([
      { index: 0, title: 'step 0', from: 'running', to: 'done' },
      { index: 1, title: 'step 1', from: 'pending', to: 'running' },
    ]);
    expectConsistent(state);
  });

  it('completes after the last step, reporting only that step', () => {
    const { state, changes } = advanceStep(frozen(executingAt(2, 3)));
    expect(state.phase).toEqual({ kind: 'completed' });
    expect(state.steps.every((s) => s.status === 'done')).toBe(true);
    expect(state.steps[2]?.summary).toBeUndefined();
    expect(changes).toEqual([{ index: 2, title: 'step 2', from: 'running', to: 'done' }]);
  });

  it.each([
    ['while planning', initialState, 'not_executing'],
    ['after completion', completed, 'not_executing'],
    ['while waiting for the user', waiting, 'waiting_for_user'],
  ])('is illegal %s', (_name, makeState, code) => {
    expect(codeOf(() => advanceStep(frozen(makeState())))).toBe(code);
  });
});

describe('saveMemo', () => {
  it.each([
    ['planning', initialState],
    ['executing', () => executingAt(1, 2)],
  ])('appends a note while %s without changing any step', (_name, makeState) => {
    const before = frozen(makeState());
    const { state, changes } = saveMemo(before, 'port 3000');
    expect(state.memo).toEqual([...before.memo, 'port 3000']);
    expect(state.phase).toEqual(before.phase);
    expect(changes).toEqual([]);
  });

  it.each([
    ['after completion', completed, 'x', 'already_completed'],
    ['while waiting for the user', waiting, 'x', 'waiting_for_user'],
    ['with a blank note', initialState, '  ', 'empty_memo'],
  ])('is illegal %s', (_name, makeState, note, code) => {
    expect(codeOf(() => saveMemo(frozen(makeState()), note))).toBe(code);
  });
});

describe('askUser and answerUser', () => {
  it('sets the question, then the answer clears it and is kept as a memo', () => {
    const asked = askUser(frozen(executingAt(1, 3)), 'which port?');
    expect(asked.state.pendingQuestion).toBe('which port?');
    expect(asked.changes).toEqual([]);
    const answered = answerUser(frozen(asked.state), '8080');
    expect(answered.state.pendingQuestion).toBeNull();
    expect(answered.state.memo).toEqual(['Q: which port?\nA: 8080']);
    expect(answered.state.phase).toEqual({ kind: 'executing', step: 1 });
    expect(answered.changes).toEqual([]);
  });

  it('may ask while planning', () => {
    expect(askUser(initialState(), 'what stack?').state.pendingQuestion).toBe('what stack?');
  });

  it.each([
    ['a second question while waiting', () => askUser(frozen(waiting()), 'again?'), 'waiting_for_user'],
    ['a question after completion', () => askUser(frozen(completed()), 'q'), 'already_completed'],
    ['a blank question', () => askUser(initialState(), ''), 'empty_question'],
    ['an answer with no open question', () => answerUser(frozen(executingAt(0, 1)), 'yes'), 'not_waiting'],
  ])('rejects %s', (_name, run, code) => {
    expect(codeOf(run)).toBe(code);
  });

  it('names itself and its code in the thrown error', () => {
    expect(() => advanceStep(initialState())).toThrow(
      expect.objectContaining({
        name: 'AgentTransitionError',
        code: 'not_executing',
        message: 'cannot advance while planning',
      }),
    );
  });
});
