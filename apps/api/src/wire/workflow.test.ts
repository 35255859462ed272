import type { WorkflowStatus } from '@svc/protocol';
import { presentPlan, progressOf, type SnapshotRow, type StepTimes } from './workflow';

const steps = (statuses: string[]) => statuses.map((status, i) => ({ title: `S${i}`, description: `do ${i}`, status }));
const executing = (step: number, statuses: string[]): SnapshotRow => ({
  phase: 'executing',
  current_step: step,
  steps: steps(statuses),
  memo: [],
  pending_question: null,
});
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));
const iso = (second: number) => at(second).toISOString();
const timed = (index: number, started: number | null, finished: number | null): StepTimes => ({
  step_index: index,
  started_at: started === null ? null : at(started),
  finished_at: finished === null ? null : at(finished),
});

const plan = (latest: SnapshotRow | null, status: WorkflowStatus, stepTimes: StepTimes[] = [], revising = false) =>
  presentPlan({ latest, status, stepTimes, revising });

describe('presentPlan', () => {
  const midway = executing(1, ['done', 'running', 'pending']);
  const events = [timed(0, 1, 5), timed(1, 5, null)];

  it('is empty before any snapshot', () => {
    expect(plan(null, 'pending')).toEqual([]);
  });

  it('gives a running workflow its running step, with the kept times', () => {
    expect(plan(midway, 'running', events)).toEqual([
      { index: 0, title: 'S0', description: 'do 0', status: 'done', started_at: iso(1), finished_at: iso(5) },
      { index: 1, title: 'S1', description: 'do 1', status: 'running', started_at: iso(5), finished_at: null },
      { index: 2, title: 'S2', description: 'do 2', status: 'pending', started_at: null, finished_at: null },
    ]);
  });

  it.each(['failed', 'cancelled'] as const)('marks the step that was running when the workflow %s', (status) => {
    const [first, second, third] = plan(midway, status, events);
    expect(first).toMatchObject({ status: 'done', finished_at: iso(5) });
    expect(first).not.toHaveProperty('interrupted');
    expect(second).toEqual({
      index: 1,
      title: 'S1',
      description: 'do 1',
      status: 'pending',
      interrupted: status,
      started_at: iso(5),
      finished_at: null,
    });
    expect(third).not.toHaveProperty('interrupted');
  });

  it.each(['pending', 'planning', 'waiting_user'] as const)(
    'has no running step while the workflow is %s (and nothing interrupted)',
    (status) => {
      const result = plan(midway, status, events);
      expect(result.map((s) => s.status)).toEqual(['done', 'pending', 'pending']);
      expect(result.some((s) => 'interrupted' in s)).toBe(false);
      expect(result[1]!.started_at).toBeNull();
    },
  );

  it('keeps done steps done, and every other step pending, while feedback is being turned into a revised plan', () => {
    const completed: SnapshotRow = { ...midway, phase: 'completed', current_step: -1, steps: steps(['done', 'done']) };
    const revising = plan(completed, 'running', [timed(0, null, 1), timed(1, null, 2)], true);
    expect(revising.map((s) => [s.status, s.finished_at])).toEqual([
      ['done', iso(1)],
      ['done', iso(2)],
    ]);
    const interrupted = plan(midway, 'running', [], true);
    expect(interrupted.map((s) => s.status)).toEqual(['done', 'pending', 'pending']);
    // A workflow that ended before the revision arrived shows its last plan as it was.
    expect(plan(completed, 'completed', [], true).map((s) => s.status)).toEqual(['done', 'done']);
  });

  it('shows a completed plan all done, with a done step never seen running still finished', () => {
    const completed: SnapshotRow = { ...midway, phase: 'completed', current_step: -1, steps: steps(['done', 'done']) };
    expect(
      plan(completed, 'completed', [timed(0, null, 3)]).map((s) => [s.status, s.started_at, s.finished_at]),
    ).toEqual([
      ['done', null, iso(3)],
      ['done', null, null],
    ]);
  });
});

describe('progressOf', () => {
  it('counts the done steps of the latest snapshot', () => {
    expect(progressOf(executing(2, ['done', 'done', 'running']), 'running', false)).toEqual({ done: 2, total: 3 });
    const planning: SnapshotRow = { ...executing(0, []), phase: 'planning', steps: steps(['pending']) };
    expect(progressOf(planning, 'planning', false)).toEqual({ done: 0, total: 1 });
  });

  it('counts the finished steps while a revised plan is awaited (the revision says what runs again)', () => {
    const midway = executing(2, ['done', 'done', 'running']);
    expect(progressOf(midway, 'pending', true)).toEqual({ done: 2, total: 3 });
    expect(progressOf(midway, 'failed', true)).toEqual({ done: 2, total: 3 });
  });
});
