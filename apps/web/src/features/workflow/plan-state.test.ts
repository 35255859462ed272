import fc from 'fast-check';
import type { PlanStepInfo, SnapshotData, StepStatus } from '@svc/protocol';
import { applyPlanEvent, livePlan, planFromSnapshot, planProgress, type PlanEvent } from './plan-state';

const plan = (...statuses: StepStatus[]): PlanStepInfo[] =>
  statuses.map((status, index) => ({ index, title: `Step ${index + 1}`, description: `Do part ${index + 1}`, status }));
const step = (index: number, status: StepStatus, title = `Step ${index + 1}`): PlanEvent => ({
  kind: 'step',
  data: { index, title, status },
});
const snapshot = (data: Partial<SnapshotData> & Pick<SnapshotData, 'steps'>): PlanEvent => ({
  kind: 'snapshot',
  data: { phase: 'executing', current_step: 0, memo: [], ...data },
});

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
    expect(next).toEqual([
      { index: 0, title: 'Write', description: 'index.html', status: 'done' },
      { index: 1, title: 'Serve', description: 'static', status: 'running' },
      { index: 2, title: 'Test', description: 'e2e', status: 'pending' },
    ]);
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
    expect(planFromSnapshot(odd)).toEqual([{ index: 0, title: 'A', description: 'x', status: 'done' }]);
  });
});

describe('livePlan', () => {
  it('applies live events in order over the loaded plan', () => {
    const events = [step(0, 'done'), step(1, 'running'), step(1, 'done'), step(2, 'running')];
    expect(livePlan(plan('running', 'pending', 'pending'), events).map((s) => s.status)).toEqual([
      'done',
      'done',
      'running',
    ]);
  });

  // A REST answer loaded after any prefix of the events, with all events replayed on top, gives the
  // same plan as all events: events the answer already reflects change nothing.
  it('reaches the latest plan whichever prefix of the events the loaded plan already reflects', () => {
    const statuses = fc.constantFrom<StepStatus>('done', 'running', 'pending');
    const stepEvents = fc.array(
      fc.tuple(fc.integer({ min: 0, max: 3 }), statuses).map(([i, s]) => step(i, s)),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(stepEvents, fc.nat(), (events, cut) => {
        const start = plan('pending', 'pending', 'pending', 'pending');
        const k = events.length === 0 ? 0 : cut % (events.length + 1);
        const loadedLater = livePlan(start, events.slice(0, k));
        expect(livePlan(loadedLater, events)).toEqual(livePlan(start, events));
      }),
    );
  });
});

describe('planProgress', () => {
  it('counts done steps and names the running one', () => {
    const progress = planProgress(plan('done', 'running', 'pending'));
    expect(progress).toMatchObject({ done: 1, total: 3, running: { index: 1 } });
    expect(planProgress([]).running).toBeNull();
  });
});
