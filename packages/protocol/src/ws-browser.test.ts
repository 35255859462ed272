import { parseJsonMessage, parseWith } from './parse';
import {
  BrowserClientMessageSchema,
  BrowserEventSchema,
  BrowserServerMessageSchema,
  hasProjectChange,
  isProjectEventType,
  PROJECT_ACCESS_CHANGES,
  PROJECT_RECORD_CHANGES,
  type BrowserClientMessage,
  type BrowserServerMessage,
} from './ws-browser';

const clientMessages: BrowserClientMessage[] = [
  { type: 'subscribe', workflow_id: 'wf-1' },
  { type: 'subscribe', workflow_id: 'wf-1', since_seq: 41 },
  { type: 'unsubscribe', workflow_id: 'wf-1' },
  { type: 'subscribe_project', project_id: 'p-1' },
  { type: 'unsubscribe_project', project_id: 'p-1' },
];

const env = { workflow_id: 'wf-1', project_id: 'p-1', seq: 7, ts: '2026-01-02T03:04:05.678Z' } as const;

const serverMessages: BrowserServerMessage[] = [
  { ...env, type: 'plan_step_status', data: { index: 1, title: 'Build', status: 'running' } },
  {
    ...env,
    type: 'llm_call',
    data: {
      id: 'c1',
      phase: 'executing',
      model: 'm',
      prompt_tokens: 1,
      completion_tokens: 2,
      latency_ms: 3,
      step_index: 1,
      attempt: 1,
      error: null,
      finish_reason: 'stop',
      has_detail: true,
      created_at: env.ts,
    },
  },
  { ...env, type: 'workflow_update', data: { kind: 'title', data: { title: 'Todo app' } } },
  { ...env, type: 'workflow_status', data: { status: 'waiting_user', question: 'Which port?' } },
  { ...env, type: 'workflow_title', data: { title: 'Todo app' } },
  {
    ...env,
    type: 'log_entry',
    data: {
      id: 'l1',
      seq: 4,
      step_index: null,
      tool_name: 'kb_search',
      tool_input: 'query: ports\n',
      output: '[]',
      is_error: false,
      revision: 2,
      duration_ms: 12,
      command: null,
      output_total_bytes: null,
      output_line_times: null,
      created_at: env.ts,
    },
  },
  { ...env, type: 'file_changed', data: { path: 'a.txt', size: 0, deleted: true } },
  {
    seq: 0,
    ts: env.ts,
    type: 'worker_status',
    data: {
      id: 'wk',
      name: 'w1',
      labels: [],
      capacity: 1,
      active: 0,
      status: 'offline',
      last_seen_at: env.ts,
      version: '1',
    },
  },
  {
    project_id: 'p-1',
    seq: 0,
    ts: env.ts,
    type: 'project_changed',
    data: { change: 'workflow_created', workflow_id: 'wf-2' },
  },
  { type: 'subscribed', workflow_id: 'wf-1', last_seq: 7 },
  {
    type: 'command_output',
    workflow_id: 'wf-1',
    data: { call_id: 'c1', event: 'started', step_index: 0, command: 'make', started_at: env.ts },
  },
  {
    type: 'command_output',
    workflow_id: 'wf-1',
    data: { call_id: 'c1', event: 'output', stream: 'stderr', offset: 10, chunk: 'warning\n' },
  },
  {
    type: 'command_output',
    workflow_id: 'wf-1',
    data: { call_id: 'c1', event: 'finished', exit_code: 0, duration_ms: 5 },
  },
  { type: 'error', error: { code: 'not_found', message: 'no such workflow' } },
];

describe('browser client messages', () => {
  it.each(clientMessages.map((m) => [m.type, m]))('accepts and round-trips %s', (_name, message) => {
    expect(parseJsonMessage(BrowserClientMessageSchema, JSON.stringify(message))).toEqual({ ok: true, value: message });
  });

  it.each([
    ['unknown type', { type: 'subscribe_all' }, 'type'],
    ['subscribe without workflow_id', { type: 'subscribe' }, 'workflow_id'],
    ['negative since_seq', { type: 'subscribe', workflow_id: 'w', since_seq: -1 }, 'since_seq'],
    ['subscribe_project with empty id', { type: 'subscribe_project', project_id: '' }, 'project_id'],
  ])('rejects %s at %s', (_name, message, path) => {
    const result = parseWith(BrowserClientMessageSchema, message);
    expect(result.ok ? null : result.error.path).toBe(path);
  });
});

describe('browser server messages', () => {
  it.each(serverMessages.map((m) => [m.type, m]))('accepts and round-trips %s', (_name, message) => {
    expect(parseJsonMessage(BrowserServerMessageSchema, JSON.stringify(message))).toEqual({ ok: true, value: message });
  });

  it('reads an llm_call event stored before attempts were logged as a successful first attempt', () => {
    const old = {
      ...env,
      type: 'llm_call',
      data: {
        id: 'c0',
        phase: 'planning',
        model: 'm',
        prompt_tokens: 1,
        completion_tokens: 2,
        latency_ms: 3,
        step_index: null,
        created_at: env.ts,
      },
    };
    const parsed = parseJsonMessage(BrowserServerMessageSchema, JSON.stringify(old));
    expect(parsed).toEqual({
      ok: true,
      value: { ...old, data: { ...old.data, attempt: 1, error: null, finish_reason: null, has_detail: false } },
    });
  });

  it('reads a log_entry event stored before revisions and durations as revision 0 with unknowns', () => {
    const old = {
      ...env,
      type: 'log_entry',
      data: {
        id: 'l0',
        seq: 1,
        step_index: 0,
        tool_name: 'read_file',
        tool_input: 'path: a\n',
        output: '',
        is_error: false,
        created_at: env.ts,
      },
    };
    expect(parseJsonMessage(BrowserServerMessageSchema, JSON.stringify(old))).toEqual({
      ok: true,
      value: {
        ...old,
        data: {
          ...old.data,
          revision: 0,
          duration_ms: null,
          command: null,
          output_total_bytes: null,
          output_line_times: null,
        },
      },
    });
  });

  it('refuses command output chunks over 16 KiB', () => {
    const message = {
      type: 'command_output',
      workflow_id: 'w',
      data: { call_id: 'c', event: 'output', stream: 'stdout', offset: 0, chunk: 'x'.repeat(16 * 1024 + 1) },
    };
    expect(BrowserServerMessageSchema.safeParse(message).success).toBe(false);
  });

  it('keeps events and control messages apart', () => {
    expect(BrowserEventSchema.safeParse({ type: 'subscribed', workflow_id: 'w', last_seq: 0 }).success).toBe(false);
  });

  it.each([
    ['unknown type', { ...env, type: 'chat', data: {} }, 'type'],
    [
      'plan step with a bad status',
      { ...env, type: 'plan_step_status', data: { index: 0, title: 't', status: 'skipped' } },
      'data.status',
    ],
    ['event without ts', { seq: 1, type: 'workflow_title', data: { title: 't' } }, 'ts'],
    ['ts that is not RFC 3339', { ...env, ts: '02/01/2026', type: 'workflow_title', data: { title: 't' } }, 'ts'],
    [
      'workflow_update of an unknown kind',
      { ...env, type: 'workflow_update', data: { kind: 'chat', data: {} } },
      'data.kind',
    ],
    ['subscribed without last_seq', { type: 'subscribed', workflow_id: 'w' }, 'last_seq'],
  ])('rejects %s at %s', (_name, message, path) => {
    const result = parseWith(BrowserServerMessageSchema, message);
    expect(result.ok ? null : result.error.path).toBe(path);
  });
});

describe('project events', () => {
  it('names the event types project subscribers receive', () => {
    expect(['project_changed', 'workflow_status', 'workflow_title'].every(isProjectEventType)).toBe(true);
    expect(['plan_step_status', 'log_entry', 'worker_status', 'subscribed'].some(isProjectEventType)).toBe(false);
  });

  it('tells project_changed events apart by their change', () => {
    const deleted = { type: 'project_changed', data: { change: 'deleted' } };
    const created = { type: 'project_changed', data: { change: 'workflow_created', workflow_id: 'w' } };
    expect(hasProjectChange(deleted, PROJECT_RECORD_CHANGES)).toBe(true);
    expect(hasProjectChange(deleted, PROJECT_ACCESS_CHANGES)).toBe(true);
    expect(hasProjectChange(created, PROJECT_RECORD_CHANGES)).toBe(false);
    expect(hasProjectChange({ type: 'workflow_status', data: { change: 'deleted' } }, PROJECT_RECORD_CHANGES)).toBe(
      false,
    );
    expect(hasProjectChange({ type: 'project_changed', data: { change: 'bogus' } }, PROJECT_ACCESS_CHANGES)).toBe(
      false,
    );
  });
});
