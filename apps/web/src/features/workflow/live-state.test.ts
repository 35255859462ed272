import type { BrowserEvent, ExecutionLogEntry, Workflow } from '@svc/protocol';
import { initialLiveState, liveReducer, liveWorkflow } from './live-state';

const ts = '2026-01-01T00:00:00Z';
const envelope = { workflow_id: 'wf', project_id: 'p', ts };
const logEntry = (seq: number): ExecutionLogEntry => ({
  id: `l${seq}`,
  seq,
  step_index: 0,
  tool_name: 'execute_on_worker',
  tool_input: 'command: ls\n',
  output: 'ok',
  is_error: false,
  created_at: ts,
});
const workflow: Workflow = {
  id: 'wf',
  project_id: 'p',
  title: 'Build a shop',
  requirement: 'Build a shop\nwith a cart',
  status: 'running',
  question: null,
  error: null,
  worker_id: null,
  template: null,
  created_at: ts,
  updated_at: ts,
  app_url: null,
  app_link: null,
};
const fold = (...events: BrowserEvent[]) => events.reduce(liveReducer, initialLiveState);

describe('liveReducer', () => {
  it('collects plan events (step statuses and snapshots) in arrival order', () => {
    const state = fold(
      { ...envelope, type: 'plan_step_status', seq: 1, data: { index: 0, title: 'A', status: 'running' } },
      {
        ...envelope,
        type: 'workflow_update',
        seq: 2,
        data: { kind: 'snapshot', data: { phase: 'planning', current_step: null, steps: [], memo: [] } },
      },
    );
    expect(state.planEvents.map((e) => e.kind)).toEqual(['step', 'snapshot']);
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

  it('leaves the state untouched for events it does not show', () => {
    const event: BrowserEvent = { ...envelope, type: 'file_changed', seq: 9, data: { path: 'a.txt', size: 1 } };
    expect(liveReducer(initialLiveState, event)).toBe(initialLiveState);
  });
});

describe('liveWorkflow', () => {
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
    expect(liveWorkflow(workflow, state)).toMatchObject({
      title: 'Shop with cart',
      status: 'waiting_user',
      question: 'Which currency?',
      app_url: 'http://apps.local/shop',
    });
  });

  it('clears the question once the workflow leaves waiting_user', () => {
    const asked = { ...workflow, status: 'waiting_user' as const, question: 'Which currency?' };
    const state = fold({ ...envelope, type: 'workflow_status', seq: 5, data: { status: 'running', question: null } });
    expect(liveWorkflow(asked, state)).toMatchObject({ status: 'running', question: null });
  });

  it('keeps the loaded record when nothing arrived', () => {
    expect(liveWorkflow(workflow, initialLiveState)).toEqual(workflow);
  });
});
