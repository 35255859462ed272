import type { UpdateBody, UpdateMessage } from '@svc/protocol';
import { emptyRows, planUpdate, WorkflowPlan, type IngestWorkflow, type KnownSnapshot } from './plan';

const now = new Date('2026-01-02T03:04:05.000Z');
const row = (over: Partial<IngestWorkflow> = {}): IngestWorkflow => ({
  id: 'wf',
  project_id: 'p',
  assigned_worker_id: 'w1',
  status: 'running',
  last_update_seq: 0,
  plan_revision: 0,
  title_worker_id: null,
  title_first_seq: null,
  title_last_seq: null,
  plan_revising: false,
  ...over,
});
const update = (seq: number, body: UpdateBody) =>
  ({ type: 'update', workflow_id: 'wf', seq, ...body }) as UpdateMessage;
const steps = (...statuses: ('pending' | 'running' | 'done')[]) =>
  statuses.map((status, i) => ({ title: `S${i}`, description: `d${i}`, status }));
const snapshot = (current: number | null, ...statuses: ('pending' | 'running' | 'done')[]): UpdateBody => ({
  kind: 'snapshot',
  data: {
    phase: current === null ? 'planning' : 'executing',
    current_step: current,
    steps: steps(...statuses),
    memo: [],
  },
});

describe('planUpdate', () => {
  it('announces exactly the steps a snapshot changed, after the workflow_update event', () => {
    const known: KnownSnapshot = { seq: 1, steps: steps('running', 'pending') };
    const plan = new WorkflowPlan(row(), known);
    const rows = emptyRows();
    expect(planUpdate(plan, rows, 'w1', update(2, snapshot(1, 'done', 'running')), now, false)).toBeNull();
    expect(plan.events.map((e) => e.type)).toEqual(['workflow_update', 'plan_step_status', 'plan_step_status']);
    expect(plan.events.slice(1).map((e) => e.data)).toEqual([
      { index: 0, title: 'S0', status: 'done' },
      { index: 1, title: 'S1', status: 'running' },
    ]);
    expect(rows.snapshots[0]).toMatchObject({ seq: 2, phase: 'executing', current_step: 1 });
    expect(rows.workerUpdates).toHaveLength(1);
  });

  it("keeps each step's times in one row per step: a batch's last start, and a finish after it", () => {
    const plan = new WorkflowPlan(row(), { seq: 1, steps: steps('running', 'pending', 'pending') });
    const rows = emptyRows();
    planUpdate(plan, rows, 'w1', update(2, snapshot(1, 'done', 'running', 'pending')), now, false);
    planUpdate(plan, rows, 'w1', update(3, snapshot(2, 'done', 'done', 'running')), now, false);
    expect(rows.stepTimes).toEqual([
      // step 0 ran before this batch: its stored start stays (null keeps it)
      { workflow_id: 'wf', step_index: 0, started_at: null, finished_at: now },
      { workflow_id: 'wf', step_index: 1, started_at: now, finished_at: now },
      { workflow_id: 'wf', step_index: 2, started_at: now, finished_at: null },
    ]);
  });

  it('clears the awaited revision with the first snapshot after feedback, and only then', () => {
    const revising = new WorkflowPlan(row({ plan_revising: true }), { seq: 5, steps: steps('done') });
    // even an older snapshot arriving late: its event comes after the feedback's
    planUpdate(revising, emptyRows(), 'w1', update(3, snapshot(0, 'running')), now, false);
    expect(revising.patch).toEqual({ plan_revising: false });
    const settled = new WorkflowPlan(row(), null);
    planUpdate(settled, emptyRows(), 'w1', update(1, snapshot(0, 'running')), now, false);
    expect(settled.patch).toEqual({});
  });

  it('stores a snapshot older than the known one without announcing steps from it', () => {
    const plan = new WorkflowPlan(row(), { seq: 5, steps: steps('done', 'running') });
    const rows = emptyRows();
    planUpdate(plan, rows, 'w1', update(3, snapshot(0, 'running', 'pending')), now, false);
    expect(plan.events.map((e) => e.type)).toEqual(['workflow_update']);
    expect(rows.snapshots).toHaveLength(1);
  });

  it('refuses a snapshot that describes no reachable state', () => {
    const plan = new WorkflowPlan(row(), null);
    const error = planUpdate(plan, emptyRows(), 'w1', update(1, snapshot(0, 'running', 'running')), now, false);
    expect(error).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/^update 1: /) });
    expect(plan.events).toEqual([]);
  });

  it('gives the workflow back when its worker pauses it, and marks a final status as finished', () => {
    const paused = new WorkflowPlan(row(), null);
    planUpdate(paused, emptyRows(), 'w1', update(1, { kind: 'status', data: { status: 'pending' } }), now, false);
    expect(paused.statusPatch).toMatchObject({ status: 'pending', assigned_worker_id: null });
    expect([paused.released, paused.releasedBy]).toEqual(['paused', 'w1']);
    const done = new WorkflowPlan(row(), null);
    planUpdate(
      done,
      emptyRows(),
      'w1',
      update(1, { kind: 'status', data: { status: 'failed', error: 'boom' } }),
      now,
      false,
    );
    // A finished run has no open question: its text, choices, default and deadline are cleared together.
    expect(done.statusPatch).toEqual({
      status: 'failed',
      question: null,
      question_choices: null,
      question_default: null,
      question_deadline: null,
      error: 'boom',
    });
    expect(done.released).toBe('finished');
  });

  it('records but does not apply a status that a later stored one superseded', () => {
    const plan = new WorkflowPlan(row(), null);
    const rows = emptyRows();
    planUpdate(
      plan,
      rows,
      'w1',
      update(2, { kind: 'status', data: { status: 'waiting_user', question: 'Q?' } }),
      now,
      true,
    );
    expect(plan.statusPatch).toBeNull();
    expect(plan.events.map((e) => e.type)).toEqual(['workflow_update']);
    expect(rows.workerUpdates).toHaveLength(1);
  });

  it('drops the status event when the status change could not be written', () => {
    const plan = new WorkflowPlan(row(), null);
    planUpdate(plan, emptyRows(), 'w1', update(1, { kind: 'status', data: { status: 'running' } }), now, false);
    planUpdate(plan, emptyRows(), 'w1', update(2, { kind: 'title', data: { title: 'T' } }), now, false);
    plan.statusRefused();
    expect(plan.events.map((e) => e.type)).toEqual(['workflow_update', 'workflow_update', 'workflow_title']);
    expect(plan.patch).toEqual({
      title: 'T',
      title_generated: true,
      title_worker_id: null,
      title_first_seq: null,
      title_last_seq: null,
    });
  });
});
