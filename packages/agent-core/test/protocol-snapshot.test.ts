// agent-core's snapshot wire form must be exactly what @svc/protocol accepts from a worker.
import fc from 'fast-check';
import { SnapshotDataSchema, UpdateMessageSchema, parseWith, type SnapshotData } from '@svc/protocol';
import { fromSnapshot, toSnapshot } from '../src/snapshot';
import { advanceStep, askUser, initialState, saveMemo, submitPlan } from '../src/transitions';
import type { SnapshotWire } from '../src/types';
import { planArb } from './support';

describe('snapshot wire form against @svc/protocol', () => {
  it('every toSnapshot output passes the protocol snapshot schema unchanged', () => {
    fc.assert(
      fc.property(planArb, fc.nat({ max: 7 }), fc.boolean(), (plan, advances, ask) => {
        let state = saveMemo(initialState(), 'memo').state;
        state = submitPlan(state, plan).state;
        for (let i = 0; i < advances && state.phase.kind === 'executing'; i++)
          state = advanceStep(state, `s${i}`).state;
        if (ask && state.phase.kind !== 'completed') state = askUser(state, 'q?').state;
        const wire = JSON.parse(JSON.stringify(toSnapshot(state)));
        expect(parseWith(SnapshotDataSchema, wire)).toEqual({ ok: true, value: wire });
        const update = { type: 'update', workflow_id: 'wf', seq: 1, kind: 'snapshot', data: wire };
        expect(parseWith(UpdateMessageSchema, update).ok).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('the protocol and agent-core snapshot types are interchangeable', () => {
    const data: SnapshotData = toSnapshot(initialState());
    const wire: SnapshotWire = data;
    expect(fromSnapshot(wire)).toEqual(initialState());
  });
});
