import fc from 'fast-check';
import type { PlanStepInfo, StepStatus, WorkflowStatus } from '@svc/protocol';
import { planView, projectPlan } from './plan-view';

const T1 = '2026-01-01T00:00:01.000Z';
const T2 = '2026-01-01T00:00:02.000Z';
const timed = (status: StepStatus, index: number): PlanStepInfo => ({
  index,
  title: `S${index}`,
  description: '',
  status,
  started_at: status === 'pending' ? null : T1,
  finished_at: status === 'done' ? T2 : null,
});
const plan = (...statuses: StepStatus[]) => statuses.map(timed);
const statusesOf = (steps: readonly PlanStepInfo[]) => steps.map((s) => s.interrupted ?? s.status);
const ALL_STATUSES: WorkflowStatus[] = [
  'pending',
  'planning',
  'running',
  'waiting_user',
  'paused',
  'completed',
  'failed',
  'cancelled',
];

describe('projectPlan', () => {
  const midway = plan('done', 'running', 'pending');

  it('keeps the running step of a running workflow, with its times', () => {
    expect(projectPlan(midway, 'running', false)).toEqual(midway);
  });

  it('keeps the step a paused workflow stopped in as running, with its start, to go on there when resumed', () => {
    expect(projectPlan(midway, 'paused', false)).toEqual(midway);
    expect(projectPlan(projectPlan(midway, 'paused', false), 'running', false)).toEqual(midway);
  });

  it.each(['failed', 'cancelled'] as const)('marks the step that was running when the workflow %s', (status) => {
    const [, second] = projectPlan(midway, status, false);
    expect(second).toEqual({ ...midway[1], status: 'pending', interrupted: status });
  });

  it.each(['pending', 'planning', 'waiting_user', 'completed'] as const)(
    'has no running step while the workflow is %s, and the step loses its start',
    (status) => {
      const projected = projectPlan(midway, status, false);
      expect(statusesOf(projected)).toEqual(['done', 'pending', 'pending']);
      expect(projected[1]!.started_at).toBeNull();
    },
  );

  it('keeps done steps done and timed while a revised plan is awaited, the rest pending and untimed', () => {
    const projected = projectPlan(plan('done', 'running', 'pending'), 'running', true);
    expect(projected.map((s) => [s.status, s.started_at, s.finished_at])).toEqual([
      ['done', T1, T2],
      ['pending', null, null],
      ['pending', null, null],
    ]);
    expect(statusesOf(projectPlan(plan('done', 'running'), 'failed', true))).toEqual(['done', 'failed']);
  });

  it('runs an interrupted step again once the workflow runs again, and forgets the interruption when queued', () => {
    const stopped = projectPlan(midway, 'cancelled', false);
    expect(statusesOf(projectPlan(stopped, 'running', false))).toEqual(['done', 'running', 'pending']);
    expect(projectPlan(stopped, 'pending', false)[1]).toEqual({ ...midway[1], status: 'pending', started_at: null });
  });

  it('gives the same plan when projected again with the same status (the web app projects what the server did)', () => {
    const step = fc.record({
      status: fc.constantFrom<StepStatus>('pending', 'running', 'done'),
      interrupted: fc.option(fc.constantFrom<'failed' | 'cancelled'>('failed', 'cancelled'), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 5 }),
        fc.constantFrom(...ALL_STATUSES),
        fc.boolean(),
        (steps, status, revising) => {
          const reported = steps.map(({ status: s, interrupted }, i) =>
            interrupted && s === 'pending' ? { ...timed(s, i), interrupted } : timed(s, i),
          );
          const once = projectPlan(reported, status, revising);
          expect(projectPlan(once, status, revising)).toEqual(once);
          // only a running or paused workflow has a running step
          if (status !== 'running' && status !== 'paused') expect(once.some((s) => s.status === 'running')).toBe(false);
        },
      ),
    );
  });
});

describe('planView', () => {
  const shown = (steps: PlanStepInfo[], status: WorkflowStatus) => planView(steps, status).steps.map((s) => s.display);

  it('counts done steps and names the current one', () => {
    expect(planView(plan('done', 'running', 'pending'), 'running')).toMatchObject({
      done: 1,
      total: 3,
      current: { index: 1 },
    });
    expect(planView([], 'running').current).toBeNull();
  });

  it('shows the first step not done as the one a question waits in', () => {
    const waiting = projectPlan(plan('done', 'running', 'pending'), 'waiting_user', false);
    expect(shown(waiting, 'waiting_user')).toEqual(['done', 'waiting', 'pending']);
    expect(planView(waiting, 'waiting_user').current).toMatchObject({ index: 1, display: 'waiting' });
    expect(shown(plan('done', 'done'), 'waiting_user')).toEqual(['done', 'done']);
  });

  it('shows the step a paused workflow stopped in as paused and current', () => {
    const paused = projectPlan(plan('done', 'running', 'pending'), 'paused', false);
    expect(shown(paused, 'paused')).toEqual(['done', 'paused', 'pending']);
    expect(planView(paused, 'paused')).toMatchObject({ done: 1, total: 3, current: { index: 1, display: 'paused' } });
    expect(planView(plan('done', 'pending'), 'paused').current).toBeNull();
  });

  it('shows where a stopped workflow stopped, and nothing current while it waits for a worker', () => {
    const cancelled = projectPlan(plan('done', 'running'), 'cancelled', false);
    expect(shown(cancelled, 'cancelled')).toEqual(['done', 'cancelled']);
    expect(planView(cancelled, 'cancelled').current).toMatchObject({ index: 1, display: 'cancelled' });
    const queued = projectPlan(plan('done', 'running'), 'pending', false);
    expect(shown(queued, 'pending')).toEqual(['done', 'pending']);
    expect(planView(queued, 'pending').current).toBeNull();
  });
});
