import type { BrowserEvent, ExecutionLogEntry, Workflow } from '@svc/protocol';
import {
  awaitingRevisedPlan,
  initialLiveState,
  liveReducer,
  liveWorkflow,
  type LiveState,
  type Loaded,
} from './live-state';

const ts = '2026-01-01T00:00:00.000Z';
const later = '2026-01-01T00:01:30.000Z';
const envelope = { workflow_id: 'wf', project_id: 'p', ts };
const logEntry = (seq: number): ExecutionLogEntry => ({
  id: `l${seq}`,
  seq,
  step_index: 0,
  tool_name: 'execute_on_worker',
  tool_input: 'command: ls\n',
  output: 'ok',
  is_error: false,
  revision: 0,
  duration_ms: 12,
  command: 'ls',
  output_total_bytes: null,
  output_line_times: null,
  created_at: ts,
});
const workflow: Workflow = {
  id: 'wf',
  project_id: 'p',
  title: 'Build a shop',
  requirement: 'Build a shop\nwith a cart',
  status: 'running',
  question: null,
  question_choices: null,
  question_default: null,
  question_deadline: null,
  error: null,
  worker_id: null,
  template: null,
  created_at: ts,
  updated_at: ts,
  app_url: null,
  number: 3,
  rerun_of: null,
  started_at: ts,
  finished_at: null,
  plan_revision: 0,
  app_link: 'http://localhost/svc/apps/key/',
  worker_name: 'w1',
  priority: 0,
  concurrency_key: null,
  concurrency_mode: null,
  requires: [],
  waiting_reason: null,
  trace_id: null,
};
/** Folds events as the page receives them, numbering them 1, 2, ... */
const foldFrom = (state: LiveState, first: number, events: BrowserEvent[]) =>
  events.reduce((s, event, i) => liveReducer(s, { event, at: first + i }), state);
const fold = (...events: BrowserEvent[]) => foldFrom(initialLiveState, 1, events);
const loaded = (value: Workflow, after = 0): Loaded<Workflow> => ({ value, after });
const action = (seq: number, kind: string, revision = 0, message: string | null = null) =>
  ({
    ...envelope,
    type: 'workflow_action',
    seq,
    data: { action: kind, actor: { id: 'u2', login: 'carol', name: 'Carol' }, message, revision },
  }) as unknown as BrowserEvent;

describe('liveReducer', () => {
  it('collects plan events (step statuses and snapshots) in arrival order, with their time and place', () => {
    const state = fold(
      { ...envelope, type: 'plan_step_status', seq: 1, data: { index: 0, title: 'A', status: 'running' } },
      {
        ...envelope,
        type: 'workflow_update',
        seq: 2,
        data: { kind: 'snapshot', data: { phase: 'planning', current_step: null, steps: [], memo: [] } },
      },
    );
    expect(state.planEvents.map((e) => [e.kind, e.at, e.ts])).toEqual([
      ['step', 1, ts],
      ['snapshot', 2, ts],
    ]);
  });

  it('appends log entries and LLM calls once each', () => {
    const call = {
      id: 'c1',
      phase: 'planning' as const,
      model: 'm',
      prompt_tokens: 5,
      completion_tokens: 2,
      latency_ms: 30,
      step_index: null,
      attempt: 1,
      error: null,
      finish_reason: 'tool_calls',
      has_detail: false,
      created_at: ts,
    };
    const state = fold(
      { ...envelope, type: 'log_entry', seq: 3, data: logEntry(3) },
      { ...envelope, type: 'log_entry', seq: 3, data: logEntry(3) },
      { ...envelope, type: 'llm_call', seq: 4, data: call },
      { ...envelope, type: 'llm_call', seq: 4, data: call },
    );
    expect(state.log.map((e) => e.seq)).toEqual([3]);
    expect(state.llmCalls.map((c) => c.id)).toEqual(['c1']);
  });

  it('leaves the state untouched for events it does not show, and for malformed actions', () => {
    const event: BrowserEvent = { ...envelope, type: 'file_changed', seq: 9, data: { path: 'a.txt', size: 1 } };
    expect(liveReducer(initialLiveState, { event, at: 1 })).toBe(initialLiveState);
    const broken = {
      ...envelope,
      type: 'workflow_action',
      seq: 10,
      data: { action: 'danced' },
    } as unknown as BrowserEvent;
    expect(liveReducer(initialLiveState, { event: broken, at: 2 })).toBe(initialLiveState);
  });

  it('keeps workflow actions once each in seq order, replayed or live', () => {
    const state = fold(action(7, 'answered', 0, 'Euro'), action(5, 'created'), action(7, 'answered', 0, 'Euro'));
    expect(state.actions.map((a) => [a.seq, a.action, a.actor.login, a.message])).toEqual([
      [5, 'created', 'carol', null],
      [7, 'answered', 'carol', 'Euro'],
    ]);
  });

  it('leaves the state untouched for workflow updates the page shows elsewhere', () => {
    const event = {
      ...envelope,
      type: 'workflow_update',
      seq: 3,
      data: { kind: 'file_changed', data: { path: 'a.txt', size: 1 } },
    } as unknown as BrowserEvent;
    expect(liveReducer(initialLiveState, { event, at: 1 })).toBe(initialLiveState);
  });

  it('keeps the place of the latest feedback when other actions follow it', () => {
    const state = fold(action(4, 'feedback', 1, 'Add a wish list'), action(5, 'answered', 1, 'Euro'));
    expect(state.feedbackAt).toBe(1);
    expect(awaitingRevisedPlan(state)).toBe(true);
  });

  it('expects a revised plan from feedback until the next snapshot arrives', () => {
    const sent = fold(action(4, 'feedback', 1, 'Add a wish list'));
    expect(awaitingRevisedPlan(sent)).toBe(true);
    const snapshot: BrowserEvent = {
      ...envelope,
      type: 'workflow_update',
      seq: 5,
      data: { kind: 'snapshot', data: { phase: 'executing', current_step: 0, steps: [], memo: [] } },
    };
    expect(awaitingRevisedPlan(foldFrom(sent, 2, [snapshot]))).toBe(false);
    expect(awaitingRevisedPlan(initialLiveState)).toBe(false);
  });
});

describe('liveWorkflow', () => {
  it('shows the routing notice of a newer workflow_routing event while the run is pending, and drops it once it starts', () => {
    const pending = { ...workflow, status: 'pending' as const, requires: ['gpu'] };
    const noted = fold({
      ...envelope,
      type: 'workflow_routing',
      seq: 1,
      data: { requires: ['gpu'], waiting_reason: 'no online worker has the labels gpu' },
    });
    expect(liveWorkflow(loaded(pending), noted).waiting_reason).toBe('no online worker has the labels gpu');
    const cleared = foldFrom(noted, 2, [
      { ...envelope, type: 'workflow_routing', seq: 2, data: { requires: ['gpu'], waiting_reason: null } },
    ]);
    expect(liveWorkflow(loaded({ ...pending, waiting_reason: 'old' }), cleared).waiting_reason).toBeNull();
    const started = foldFrom(noted, 2, [
      { ...envelope, type: 'workflow_status', seq: 2, data: { status: 'planning' } },
    ]);
    expect(liveWorkflow(loaded(pending), started).waiting_reason).toBeNull();
  });

  it('shows the latest status, question, title and app URL from live events over the loaded record', () => {
    const state = fold(
      { ...envelope, type: 'workflow_title', seq: 1, data: { title: 'Shop with cart' } },
      { ...envelope, type: 'workflow_status', seq: 2, data: { status: 'waiting_user', question: 'Which currency?' } },
      {
        ...envelope,
        type: 'workflow_update',
        seq: 3,
        data: { kind: 'report', data: { path: 'report.md', app_url: 'http://apps.local/shop' } },
      },
    );
    expect(liveWorkflow(loaded(workflow), state)).toMatchObject({
      title: 'Shop with cart',
      status: 'waiting_user',
      question: 'Which currency?',
      app_url: 'http://apps.local/shop',
    });
  });

  it('takes the choices, default and deadline of a live question, and drops them with the question', () => {
    const data = {
      status: 'waiting_user' as const,
      question: 'Deploy?',
      choices: ['yes', 'no'],
      default: 'no',
      deadline: '2026-11-28T10:42:00.000Z',
    };
    const asking = fold({ ...envelope, type: 'workflow_status', seq: 5, data });
    expect(liveWorkflow(loaded(workflow), asking)).toMatchObject({
      question: 'Deploy?',
      question_choices: ['yes', 'no'],
      question_default: 'no',
      question_deadline: '2026-11-28T10:42:00.000Z',
    });
    const answered = fold({
      ...envelope,
      type: 'workflow_status',
      seq: 6,
      data: { status: 'running', question: null },
    });
    expect(liveWorkflow(loaded({ ...workflow, ...data, question_choices: ['yes', 'no'] }), answered)).toMatchObject({
      question_choices: null,
      question_default: null,
      question_deadline: null,
    });
  });

  it('clears the question once the workflow leaves waiting_user', () => {
    const asked = { ...workflow, status: 'waiting_user' as const, question: 'Which currency?' };
    const state = fold({ ...envelope, type: 'workflow_status', seq: 5, data: { status: 'running', question: null } });
    expect(liveWorkflow(loaded(asked), state)).toMatchObject({ status: 'running', question: null });
  });

  it('keeps the loaded record when nothing arrived', () => {
    expect(liveWorkflow(loaded(workflow), initialLiveState)).toEqual(workflow);
  });

  it('ignores events received before the record was loaded: a newer load (a poll) is not rolled back', () => {
    const state = fold(
      { ...envelope, type: 'workflow_status', seq: 5, data: { status: 'running' } },
      { ...envelope, type: 'workflow_title', seq: 6, data: { title: 'Old title' } },
    );
    const polled = { ...workflow, status: 'completed' as const, title: 'New title', finished_at: later };
    expect(liveWorkflow(loaded(polled, 2), state)).toMatchObject({ status: 'completed', title: 'New title' });
    // the same record loaded before those events: they apply
    expect(liveWorkflow(loaded(polled, 1), state)).toMatchObject({ status: 'completed', title: 'Old title' });
    expect(liveWorkflow(loaded(polled, 0), state)).toMatchObject({ status: 'running', finished_at: null });
  });

  it('takes start and end times from status events until the record is reloaded', () => {
    const pending = { ...workflow, status: 'pending' as const, started_at: null };
    const running = foldFrom(initialLiveState, 1, [
      { ...envelope, type: 'workflow_status', seq: 2, ts: later, data: { status: 'running' } },
    ]);
    expect(liveWorkflow(loaded(pending), running)).toMatchObject({ started_at: later, finished_at: null });
    const cancelled = foldFrom(initialLiveState, 1, [
      { ...envelope, type: 'workflow_status', seq: 9, ts: later, data: { status: 'cancelled' } },
    ]);
    expect(liveWorkflow(loaded(workflow), cancelled)).toMatchObject({
      status: 'cancelled',
      started_at: ts,
      finished_at: later,
    });
  });

  it('counts plan revisions from live feedback actions', () => {
    const state = fold(action(8, 'feedback', 2, 'More tests'));
    expect(liveWorkflow(loaded({ ...workflow, plan_revision: 1 }), state).plan_revision).toBe(2);
  });
  it('shows the error only while failed, from the status event or else the loaded record', () => {
    const failedLive = fold({
      ...envelope,
      type: 'workflow_status',
      seq: 3,
      data: { status: 'failed', error: 'boom' },
    });
    expect(liveWorkflow(loaded(workflow), failedLive)).toMatchObject({ status: 'failed', error: 'boom' });
    const failedLoaded = { ...workflow, status: 'failed' as const, error: 'loaded boom', finished_at: later };
    expect(liveWorkflow(loaded(failedLoaded), initialLiveState)).toMatchObject({
      error: 'loaded boom',
      finished_at: later,
    });
    const bare = fold({ ...envelope, type: 'workflow_status', seq: 3, data: { status: 'failed' } });
    expect(liveWorkflow(loaded(failedLoaded), bare)).toMatchObject({ error: 'loaded boom', finished_at: ts });
    const rerun = fold({ ...envelope, type: 'workflow_status', seq: 4, data: { status: 'running' } });
    expect(liveWorkflow(loaded(failedLoaded), rerun)).toMatchObject({ error: null, finished_at: null });
  });

  it('keeps a live pending workflow unstarted, and a loaded start time over a status event', () => {
    const pending = { ...workflow, status: 'pending' as const, started_at: null };
    const stillPending = fold({ ...envelope, type: 'workflow_status', seq: 2, ts: later, data: { status: 'pending' } });
    expect(liveWorkflow(loaded(pending), stillPending).started_at).toBeNull();
    const running = fold({ ...envelope, type: 'workflow_status', seq: 2, ts: later, data: { status: 'running' } });
    expect(liveWorkflow(loaded(workflow), running).started_at).toBe(ts);
  });
});
