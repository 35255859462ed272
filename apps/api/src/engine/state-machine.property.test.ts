import fc from 'fast-check';
import { WorkflowStatusSchema, type WorkflowStatus } from '@svc/protocol';
import { decide, FINISHED, type RunEvent, type RunState } from './state-machine';
import { transitionParts } from './transition-parts';

const RUNS = { numRuns: 2000 };
const STATUSES = WorkflowStatusSchema.options;

/** Any event the server or a worker may send, with the worker's report of any status, question or not. */
export const runEventArb: fc.Arbitrary<RunEvent> = fc.oneof(
  fc.constantFrom<RunEvent>(
    { type: 'created' },
    { type: 'claimed' },
    { type: 'unclaimed' },
    { type: 'answered' },
    { type: 'cancelled' },
    { type: 'retried' },
    { type: 'deleted' },
    { type: 'timer_set' },
    { type: 'timer_fired' },
    { type: 'lease_expired' },
    { type: 'pause_requested' },
  ),
  fc.boolean().map((hasPlan): RunEvent => ({ type: 'feedback', hasPlan })),
  fc.boolean().map((hasPlan): RunEvent => ({ type: 'resumed', hasPlan })),
  fc
    .record({
      status: fc.constantFrom(...STATUSES),
      question: fc.option(fc.constantFrom('Which port?', ''), { nil: undefined }),
    })
    .map((r): RunEvent => ({ type: 'worker_reported', ...r })),
);

const action = (revision: number) => ({ type: 'workflow_action' as const, data: { revision } });

/** Runs a sequence through the table as the engine does, checking every step. */
function walk(events: RunEvent[]): RunState {
  let state: RunState = 'new';
  for (const event of events) {
    const decision = decide(state, event);
    if (decision.kind === 'refuse') continue; // refused: nothing is written, the state stays
    const parts = transitionParts(decision, action, 1, new Date(0));
    const statusEvents = parts.events.filter((e) => e.type === 'workflow_status');
    // Every applied transition emits its action event, and a move its status event with the new status.
    expect(parts.events.at(-1)).toEqual(action(1));
    if (decision.kind === 'move') {
      expect(statusEvents).toEqual([
        { type: 'workflow_status', data: expect.objectContaining({ status: decision.to }) },
      ]);
      expect(parts.columns.status).toBe(decision.to);
      expect(parts.columns.finished_at === null).toBe(!FINISHED.includes(decision.to));
      state = decision.to;
    } else {
      expect(statusEvents).toEqual([]);
      expect(parts.columns).toEqual({});
    }
    expect(STATUSES).toContain(state);
  }
  return state;
}

describe('the run state machine, under random event sequences', () => {
  it('never reaches an undeclared state, and every applied transition emits its events', () => {
    fc.assert(
      fc.property(fc.array(runEventArb, { maxLength: 30 }), (events) => {
        const end = walk([{ type: 'created' }, ...events]);
        expect(STATUSES).toContain(end);
      }),
      RUNS,
    );
  });

  it('leaves the state as it was when an event is refused', () => {
    fc.assert(
      fc.property(fc.constantFrom<RunState>('new', ...STATUSES), runEventArb, (state, event) => {
        const decision = decide(state, event);
        if (decision.kind !== 'refuse') return;
        expect(decision.reason).not.toBe('');
        // The same event again is refused again: a refusal depends on nothing but the state and the event.
        expect(decide(state, event)).toEqual(decision);
      }),
      RUNS,
    );
  });

  it('lets a finished run leave its final status only through a user action', () => {
    const userActions = new Set(['feedback', 'retried']);
    fc.assert(
      fc.property(fc.constantFrom(...FINISHED), runEventArb, (state: WorkflowStatus, event) => {
        const decision = decide(state, event);
        if (decision.kind === 'move' && decision.to !== state) expect(userActions.has(event.type)).toBe(true);
      }),
      RUNS,
    );
  });

  it('moves a paused run only by a member (resume, cancel, delete) or its worker, never by the server', () => {
    const movers = new Set(['resumed', 'cancelled', 'deleted', 'worker_reported']);
    fc.assert(
      fc.property(runEventArb, (event) => {
        const decision = decide('paused', event);
        if (decision.kind === 'move' && decision.to !== 'paused') expect(movers.has(event.type)).toBe(true);
      }),
      RUNS,
    );
  });
});
