import { executingAt, frozen } from '../test/support';
import { SnapshotError } from './errors';
import { fromSnapshot, toSnapshot } from './snapshot';
import { askUser, initialState } from './transitions';
import type { SnapshotWire } from './types';

const valid: SnapshotWire = {
  phase: 'executing',
  current_step: 1,
  steps: [
    { title: 'a', description: 'da', status: 'done', summary: 'ok' },
    { title: 'b', description: 'db', status: 'running' },
    { title: 'c', description: 'dc', status: 'pending' },
  ],
  memo: ['m'],
  pending_question: 'which port?',
};

describe('toSnapshot', () => {
  it('writes the wire form with current_step only while executing', () => {
    const state = askUser(executingAt(1, 3), 'which port?').state;
    expect(toSnapshot(state)).toEqual({
      phase: 'executing',
      current_step: 1,
      steps: [
        { title: 'step 0', description: 'do step 0', status: 'done', summary: 'finished 0' },
        { title: 'step 1', description: 'do step 1', status: 'running' },
        { title: 'step 2', description: 'do step 2', status: 'pending' },
      ],
      memo: [],
      pending_question: 'which port?',
    });
    expect(toSnapshot(initialState())).toEqual({
      phase: 'planning',
      current_step: null,
      steps: [],
      memo: [],
      pending_question: null,
    });
  });
});

describe('fromSnapshot', () => {
  it('rebuilds the state and round-trips', () => {
    const state = fromSnapshot(frozen(valid));
    expect(state.phase).toEqual({ kind: 'executing', step: 1 });
    expect(state.pendingQuestion).toBe('which port?');
    expect(toSnapshot(state)).toEqual(valid);
  });

  it('treats a missing pending_question as none', () => {
    const { pending_question: _omitted, ...older } = valid;
    expect(fromSnapshot(older).pendingQuestion).toBeNull();
  });

  const steps = valid.steps;
  it.each<[string, unknown, RegExp]>([
    ['two running steps', { ...valid, steps: [steps[1], steps[1], steps[2]] }, /step 0 is running but must be done/],
    ['current_step not running', { ...valid, current_step: 2 }, /step 1 is running but must be done/],
    ['current_step past the plan', { ...valid, current_step: 3 }, /outside the plan/],
    ['executing without current_step', { ...valid, current_step: null }, /current_step must be a step index/],
    [
      'completed with a pending step',
      { ...valid, phase: 'completed', current_step: null, pending_question: null },
      /step 1 is running but must be done/,
    ],
    [
      'completed with an open question',
      { ...valid, phase: 'completed', current_step: null, steps: [steps[0]] },
      /cannot wait/,
    ],
    ['planning with a current step', { ...valid, phase: 'planning' }, /current_step must be null while planning/],
    [
      'planning with a done step',
      { ...valid, phase: 'planning', current_step: null },
      /step 0 is done but must be pending/,
    ],
    ['an unknown phase', { ...valid, phase: 'paused' }, /phase must be/],
    ['an unknown step status', { ...valid, steps: [{ ...steps[0], status: 'skipped' }] }, /steps\.0\.status/],
    ['a step without title', { ...valid, steps: [{ description: 'x', status: 'done' }] }, /steps\.0\.title/],
    ['memo that is not strings', { ...valid, memo: [1] }, /memo must be an array of strings/],
    ['a non-object', 'snapshot', /must be an object/],
  ])('rejects %s', (_name, data, message) => {
    expect(() => fromSnapshot(data as SnapshotWire)).toThrow(SnapshotError);
    expect(() => fromSnapshot(data as SnapshotWire)).toThrow(message);
  });

  it('gives SnapshotError the invalid_snapshot code', () => {
    expect(() => fromSnapshot({ ...valid, current_step: 0 })).toThrow(
      expect.objectContaining({ name: 'SnapshotError', code: 'invalid_snapshot' }),
    );
  });
});
