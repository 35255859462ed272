import fc from 'fast-check';
import type { PlanStepInfo, SnapshotData, StepStatus } from '@svc/protocol';
import { applyPlanEvent, livePlan, planFromSnapshot, type PlanEvent } from './plan-state';

const T0 = '2026-01-01T10:00:00.000Z';
const T1 = '2026-01-01T10:00:42.000Z';
const T2 = '2026-01-01T10:01:10.000Z';

const plan = (...statuses: StepStatus[]): PlanStepInfo[] =>
  statuses.map((status, index) => ({
    index,
    title: `Step ${index + 1}`,
    description: `Do part ${index + 1}`,
    status,
    started_at: null,
    finished_at: null,
  }));
const step = (index: number, status: StepStatus, title = `Step ${index + 1}`, ts = T0, at = 1): PlanEvent => ({
  kind: 'step',
  data: { index, title, status },
  ts,
  at,
});
const snapshot = (data: Partial<SnapshotData> & Pick<SnapshotData, 'steps'>, ts = T0, at = 1): PlanEvent => ({
  kind: 'snapshot',
  data: { phase: 'executing', current_step: 0, memo: [], ...data },
  ts,
  at,
});
const loadedAt = (steps: PlanStepInfo[], after = 0) => ({ steps, after });
/** Numbers events 1, 2, ... in the order given, as the page receives them. */
const numbered = (events: PlanEvent[]) => events.map((e, i) => ({ ...e, at: i + 1 }));
/** The events the server could send: one per change, so a step's next event never repeats its status. */
const changesOnly = (events: PlanEvent[]) => {
  const last = new Map<number, string>();
  return events.filter((e) => {
    if (e.kind !== 'step') return true;
    if (last.get(e.data.index) === e.data.status) return false;
    last.set(e.data.index, e.data.status);
    return true;
  });
};

describe('applyPlanEvent', () => {
  it('changes the status of the step the event names', () => {
    expect(applyPlanEvent(plan('running', 'pending'), step(0, 'done')).map((s) => s.status)).toEqual([
      'done',
      'pending',
    ]);
  });

  it('ignores an event about a step of another plan (title differs) or beyond the plan', () => {
    const current = plan('running', 'pending');
    expect(applyPlanEvent(current, step(0, 'done', 'Old step'))).toBe(current);
    expect(applyPlanEvent(current, step(5, 'done'))).toBe(current);
  });

  it('times a step from the event that started it to the one that finished it', () => {
    const running = applyPlanEvent(plan('pending', 'pending'), step(0, 'running', undefined, T0));
    expect(running[0]).toMatchObject({ status: 'running', started_at: T0, finished_at: null });
    const done = applyPlanEvent(running, step(0, 'done', undefined, T1));
    expect(done[0]).toMatchObject({ status: 'done', started_at: T0, finished_at: T1 });
    // run again (a revised plan re-runs it): the clock restarts
    expect(applyPlanEvent(done, step(0, 'running', undefined, T2))[0]).toMatchObject({
      started_at: T2,
      finished_at: null,
    });
    expect(applyPlanEvent(done, step(0, 'pending'))[0]).toMatchObject({ started_at: null, finished_at: null });
  });

  it('replaces the whole plan with a snapshot, statuses rebuilt from the phase like GET /plan', () => {
    const next = applyPlanEvent(
      plan('pending'),
      snapshot({
        phase: 'executing',
        current_step: 1,
        steps: [
          { title: 'Write', description: 'index.html', status: 'done' },
          { title: 'Serve', description: 'static', status: 'running' },
          { title: 'Test', description: 'e2e', status: 'pending' },
        ],
      }),
    );
    expect(next.map(({ index, title, status }) => ({ index, title, status }))).toEqual([
      { index: 0, title: 'Write', status: 'done' },
      { index: 1, title: 'Serve', status: 'running' },
      { index: 2, title: 'Test', status: 'pending' },
    ]);
  });

  it('keeps the times of steps a snapshot carries over (same index and title), and times what it starts', () => {
    const before: PlanStepInfo[] = [
      { ...plan('done')[0]!, started_at: T0, finished_at: T1 },
      { index: 1, title: 'Old second', description: '', status: 'running', started_at: T1, finished_at: null },
    ];
    const next = applyPlanEvent(
      before,
      snapshot(
        {
          current_step: 1,
          steps: [
            { title: 'Step 1', description: '', status: 'done' },
            { title: 'New second', description: '', status: 'running' },
            { title: 'Third', description: '', status: 'pending' },
          ],
        },
        T2,
      ),
    );
    expect(next.map((s) => [s.started_at, s.finished_at])).toEqual([
      [T0, T1],
      [T2, null],
      [null, null],
    ]);
  });

  it('times a step a snapshot moves on (the step event that follows it changes nothing)', () => {
    const steps = (first: StepStatus, second: StepStatus) => [
      { title: 'Step 1', description: '', status: first },
      { title: 'Step 2', description: '', status: second },
    ];
    const running = applyPlanEvent(
      plan('pending', 'pending'),
      snapshot({ current_step: 0, steps: steps('running', 'pending') }, T0),
    );
    const next = applyPlanEvent(running, snapshot({ current_step: 1, steps: steps('done', 'running') }, T1));
    const after = applyPlanEvent(next, step(1, 'running', undefined, T2));
    expect(after.map((s) => [s.status, s.started_at, s.finished_at])).toEqual([
      ['done', T0, T1],
      ['running', T1, null],
    ]);
  });

  it('clears an interruption when the step moves again (a retried run)', () => {
    const stopped: PlanStepInfo[] = [{ ...plan('pending')[0]!, interrupted: 'cancelled', started_at: T0 }];
    const resumed = applyPlanEvent(stopped, step(0, 'pending'));
    expect(resumed[0]!.interrupted).toBeUndefined();
  });
});

describe('planFromSnapshot', () => {
  it('shows every step done once completed and pending while planning', () => {
    const steps = [
      { title: 'A', description: '', status: 'done' as const },
      { title: 'B', description: '', status: 'done' as const },
    ];
    expect(planFromSnapshot({ phase: 'completed', current_step: null, steps, memo: [] }).map((s) => s.status)).toEqual([
      'done',
      'done',
    ]);
    const pending = steps.map((s) => ({ ...s, status: 'pending' as const }));
    expect(
      planFromSnapshot({ phase: 'planning', current_step: null, steps: pending, memo: [] }).map((s) => s.status),
    ).toEqual(['pending', 'pending']);
  });

  it('still shows a snapshot the state machine rejects, as it says', () => {
    const odd: SnapshotData = {
      phase: 'executing',
      current_step: 0,
      steps: [{ title: 'A', description: 'x', status: 'done' }],
      memo: [],
    };
    expect(planFromSnapshot(odd)).toEqual([
      { index: 0, title: 'A', description: 'x', status: 'done', started_at: null, finished_at: null },
    ]);
  });
});

describe('livePlan', () => {
  it('applies live events in order over the loaded plan', () => {
    const events = numbered([step(0, 'done'), step(1, 'running'), step(1, 'done'), step(2, 'running')]);
    expect(livePlan(loadedAt(plan('running', 'pending', 'pending')), events).map((s) => s.status)).toEqual([
      'done',
      'done',
      'running',
    ]);
  });

  it('skips events received before the plan was loaded, so a newer load is not rolled back', () => {
    const events = numbered([step(0, 'running'), step(0, 'done'), step(1, 'running')]);
    // a poll while the socket was down loaded a plan newer than every event
    const polled = plan('done', 'done', 'running');
    expect(livePlan(loadedAt(polled, 3), events).map((s) => s.status)).toEqual(['done', 'done', 'running']);
    expect(livePlan(undefined, events).map((s) => s.status)).toEqual([]);
  });

  // The page loads the plan after some prefix of the events, and marks the load with a count no larger
  // than that prefix (it may have counted fewer when the load began). Applying the events after the mark
  // gives the same plan, timings included, as applying every event to the plan before any of them.
  // Step events are changes (the server diffs snapshots): a repeated status would restart a finished
  // step's clock when replayed, and the server never sends one.
  it('reaches the latest plan whichever prefix the load reflects and whatever earlier mark it got', () => {
    const statuses = fc.constantFrom<StepStatus>('done', 'running', 'pending');
    const times = fc.constantFrom(T0, T1, T2);
    const stepEvents = fc
      .array(
        fc.tuple(fc.integer({ min: 0, max: 3 }), statuses, times).map(([i, s, ts]) => step(i, s, undefined, ts)),
        { maxLength: 12 },
      )
      .map(changesOnly);
    fc.assert(
      fc.property(stepEvents, fc.nat(), fc.nat(), (raw, cut, back) => {
        const events = numbered(raw);
        const start = plan('pending', 'pending', 'pending', 'pending');
        const reflected = events.length === 0 ? 0 : cut % (events.length + 1);
        const mark = reflected === 0 ? 0 : reflected - (back % (reflected + 1));
        const loaded = livePlan(loadedAt(start), events.slice(0, reflected));
        expect(livePlan(loadedAt(loaded, mark), events)).toEqual(livePlan(loadedAt(start), events));
      }),
    );
  });
});
