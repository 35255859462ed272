import { parseJsonMessage, parseWith } from './parse';
import type { SnapshotData } from './updates';
import {
  ServerToWorkerMessageSchema,
  WORKER_PROTOCOL_VERSION,
  WorkerToServerMessageSchema,
  type ServerToWorkerMessage,
  type WorkerToServerMessage,
} from './ws-worker';

const snapshot: SnapshotData = {
  phase: 'executing',
  current_step: 1,
  steps: [
    { title: 'Set up', description: 'create the repo', status: 'done', summary: 'created' },
    { title: 'Build', description: 'write the app', status: 'running' },
  ],
  memo: ['uses port 3000'],
  pending_question: null,
};

const update = { type: 'update', workflow_id: 'wf-1', seq: 3 } as const;

const workerMessages: WorkerToServerMessage[] = [
  {
    type: 'register',
    protocol_version: WORKER_PROTOCOL_VERSION,
    name: 'w1',
    labels: ['gpu'],
    capacity: 2,
    version: '0.1.0',
    hostname: 'box',
  },
  { type: 'heartbeat' },
  { type: 'heartbeat', active_workflows: ['wf-1'] },
  { ...update, kind: 'snapshot', data: snapshot },
  {
    ...update,
    kind: 'log_entry',
    data: {
      step_index: 0,
      tool_name: 'execute_on_worker',
      tool_input: { command: 'ls', nested: { a: [1] } },
      output: 'a\n',
      is_error: false,
      duration_ms: 15,
    },
  },
  {
    ...update,
    kind: 'llm_call',
    data: {
      phase: 'planning',
      model: 'm',
      prompt_tokens: 10,
      completion_tokens: 5,
      latency_ms: 120,
      step_index: null,
      attempt: 1,
      error: null,
      finish_reason: 'tool_calls',
      detail: {
        messages: [{ role: 'user', content: 'Plan a todo app' }],
        reply: { role: 'assistant', content: null, tool_calls: [{ id: 't', type: 'function' }] },
        truncated: false,
      },
    },
  },
  {
    ...update,
    kind: 'llm_call',
    data: {
      phase: 'executing',
      model: 'm',
      prompt_tokens: null,
      completion_tokens: null,
      latency_ms: 7,
      step_index: 2,
      attempt: 2,
      error: 'HTTP 429: 429 Rate limit reached',
      finish_reason: null,
    },
  },
  { ...update, kind: 'status', data: { status: 'waiting_user', question: 'Which port?' } },
  { ...update, kind: 'status', data: { status: 'failed', error: 'LLM unreachable' } },
  { ...update, kind: 'title', data: { title: 'Todo app' } },
  { ...update, kind: 'report', data: { path: 'report.md', app_url: 'http://box:3000/' } },
  { ...update, kind: 'file_changed', data: { path: 'src/a.ts', size: 12, sha256: 'a'.repeat(64) } },
  {
    ...update,
    kind: 'step_diff',
    data: {
      step_index: 0,
      files: [{ path: 'a.txt', status: 'added', additions: 1, deletions: 0, binary: false }],
      patch: '--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+hi\n',
      truncated: false,
    },
  },
  {
    type: 'command_output',
    workflow_id: 'wf-1',
    call_id: 'c1',
    event: 'started',
    step_index: 1,
    command: 'ls',
    started_at: '2026-01-02T03:04:05.678Z',
  },
  {
    type: 'command_output',
    workflow_id: 'wf-1',
    call_id: 'c1',
    event: 'output',
    stream: 'stdout',
    offset: 0,
    chunk: 'a\n',
  },
  { type: 'command_output', workflow_id: 'wf-1', call_id: 'c1', event: 'finished', exit_code: null, duration_ms: 30 },
  { type: 'exec_result', request_id: 'r1', exit_code: 0, output: 'ok', timed_out: false },
  { type: 'exec_result', request_id: 'r2', exit_code: null, output: '', timed_out: true },
  // a cut output's whole and its line times (decision 0081)
  {
    type: 'exec_result',
    request_id: 'r4',
    exit_code: 0,
    output: 'a\n…[9 bytes of output omitted]…\nz',
    timed_out: false,
    output_object: { name: '7d9f2c1e-5b7a-4c1e-9f55-0c8b1f0e2a11', total_bytes: 13 },
    output_line_times: {
      started_at: '2026-01-02T03:04:05.678Z',
      lines: [
        [0, null],
        [1, 0],
        [2, null],
        [3, 40],
      ],
    },
  },
  {
    type: 'exec_request',
    request_id: 'r3',
    target_worker: 'w2',
    workflow_id: 'wf-1',
    command: 'nvidia-smi',
    timeout_seconds: 30,
  },
];

const serverMessages: ServerToWorkerMessage[] = [
  { type: 'registered', worker_id: 'wk-1', protocol_version: 1, heartbeat_seconds: 15 },
  { type: 'registered', worker_id: 'wk-1', protocol_version: 1, heartbeat_seconds: 15, lease_seconds: 60 },
  { type: 'holding', workflow_ids: ['wf-1'] },
  { type: 'ack', workflow_id: 'wf-1', seq: 3 },
  {
    type: 'dispatch',
    action: 'start',
    workflow_id: 'wf-1',
    project_id: 'p-1',
    requirement: 'Build a\ntodo app',
    last_seq: 0,
  },
  {
    type: 'dispatch',
    action: 'feedback',
    workflow_id: 'wf-1',
    project_id: 'p-1',
    requirement: 'r',
    template: 'react',
    snapshot,
    message: 'add tests',
    last_seq: 9,
  },
  {
    type: 'dispatch',
    action: 'answer',
    workflow_id: 'wf-1',
    project_id: 'p-1',
    requirement: 'r',
    message: '8080',
    last_seq: 9,
  },
  { type: 'exec', request_id: 'r3', workflow_id: 'wf-1', command: 'nvidia-smi' },
  { type: 'exec_result', request_id: 'r3', exit_code: 1, output: 'not found', timed_out: false },
  {
    type: 'exec_result',
    request_id: 'r3',
    exit_code: 0,
    output: 'cut',
    timed_out: false,
    output_object: { name: 'o1', total_bytes: 70_000 },
  },
  { type: 'error', error: { code: 'invalid_input', message: 'seq: expected int' } },
];

function errorPath(result: ReturnType<typeof parseWith>): string | null {
  return result.ok ? null : result.error.path;
}

describe('worker -> server messages', () => {
  it.each(workerMessages.map((m) => [`${m.type}${'kind' in m ? `/${m.kind}` : ''}`, m]))(
    'accepts and round-trips %s',
    (_name, message) => {
      expect(parseJsonMessage(WorkerToServerMessageSchema, JSON.stringify(message))).toEqual({
        ok: true,
        value: message,
      });
    },
  );

  it('accepts an llm_call of an older worker (numbers, no attempt, error or finish_reason)', () => {
    const data = {
      phase: 'planning',
      model: 'm',
      prompt_tokens: 10,
      completion_tokens: 5,
      latency_ms: 1,
      step_index: null,
    };
    expect(parseWith(WorkerToServerMessageSchema, { ...update, kind: 'llm_call', data })).toEqual({
      ok: true,
      value: { ...update, kind: 'llm_call', data },
    });
  });

  it.each([
    ['unknown type', { type: 'hello' }, 'type'],
    ['unknown update kind', { ...update, kind: 'progress', data: {} }, 'kind'],
    [
      'snapshot step without title',
      { ...update, kind: 'snapshot', data: { ...snapshot, steps: [{ description: 'd', status: 'done' }] } },
      'data.steps.0.title',
    ],
    [
      'snapshot step with a bad status',
      {
        ...update,
        kind: 'snapshot',
        data: { ...snapshot, steps: [{ title: 't', description: 'd', status: 'skipped' }] },
      },
      'data.steps.0.status',
    ],
    ['seq 0', { ...update, seq: 0, kind: 'title', data: { title: 't' } }, 'seq'],
    ['fractional seq', { ...update, seq: 1.5, kind: 'title', data: { title: 't' } }, 'seq'],
    [
      'tool_input that is not an object',
      {
        ...update,
        kind: 'log_entry',
        data: { step_index: 0, tool_name: 't', tool_input: 'ls', output: '', is_error: false },
      },
      'data.tool_input',
    ],
    [
      'negative token count',
      {
        ...update,
        kind: 'llm_call',
        data: { phase: 'executing', model: 'm', prompt_tokens: -1, completion_tokens: 0, latency_ms: 0, step_index: 0 },
      },
      'data.prompt_tokens',
    ],
    [
      'attempt 0',
      {
        ...update,
        kind: 'llm_call',
        data: {
          phase: 'executing',
          model: 'm',
          prompt_tokens: 1,
          completion_tokens: 1,
          latency_ms: 0,
          step_index: 0,
          attempt: 0,
        },
      },
      'data.attempt',
    ],
    ['unknown workflow status', { ...update, kind: 'status', data: { status: 'waiting_approval' } }, 'data.status'],
    [
      'sha256 that is not hex',
      { ...update, kind: 'file_changed', data: { path: 'a', size: 1, sha256: 'xyz' } },
      'data.sha256',
    ],
    [
      'register without capacity',
      { type: 'register', protocol_version: 1, name: 'w', labels: [], version: '1', hostname: 'h' },
      'capacity',
    ],
    [
      'exec_result naming an output object with a path',
      {
        type: 'exec_result',
        request_id: 'r',
        exit_code: 0,
        output: 'x',
        timed_out: false,
        output_object: { name: '../other/o1', total_bytes: 1 },
      },
      'output_object.name',
    ],
    [
      'exec_result with line times that do not ascend',
      {
        type: 'exec_result',
        request_id: 'r',
        exit_code: 0,
        output: 'x',
        timed_out: false,
        output_line_times: {
          started_at: '2026-01-02T03:04:05.678Z',
          lines: [
            [1, 0],
            [0, null],
          ],
        },
      },
      'output_line_times.lines',
    ],
    [
      'exec_request without target',
      { type: 'exec_request', request_id: 'r', workflow_id: 'w', command: 'ls' },
      'target_worker',
    ],
  ])('rejects %s at %s', (_name, message, path) => {
    expect(errorPath(parseWith(WorkerToServerMessageSchema, message))).toBe(path);
  });

  it('accepts a register with another protocol version, so the server can close with 4400 itself', () => {
    const result = parseWith(WorkerToServerMessageSchema, { ...workerMessages[0], protocol_version: 2 });
    expect(result.ok).toBe(true);
  });
});

describe('server -> worker messages', () => {
  it.each(serverMessages.map((m) => [`${m.type}${'action' in m ? `/${m.action}` : ''}`, m]))(
    'accepts and round-trips %s',
    (_name, message) => {
      expect(parseJsonMessage(ServerToWorkerMessageSchema, JSON.stringify(message))).toEqual({
        ok: true,
        value: message,
      });
    },
  );

  it.each([
    ['unknown type', { type: 'update' }, 'type'],
    [
      'unknown dispatch action',
      { type: 'dispatch', action: 'suspend', workflow_id: 'w', project_id: 'p', requirement: 'r', last_seq: 0 },
      'action',
    ],
    [
      'answer without message',
      { type: 'dispatch', action: 'answer', workflow_id: 'w', project_id: 'p', requirement: 'r', last_seq: 0 },
      'message',
    ],
    [
      'dispatch without last_seq',
      { type: 'dispatch', action: 'start', workflow_id: 'w', project_id: 'p', requirement: 'r' },
      'last_seq',
    ],
    [
      'exec with zero timeout',
      { type: 'exec', request_id: 'r', workflow_id: 'w', command: 'ls', timeout_seconds: 0 },
      'timeout_seconds',
    ],
    ['error with unknown code', { type: 'error', error: { code: 'oops', message: 'm' } }, 'error.code'],
  ])('rejects %s at %s', (_name, message, path) => {
    expect(errorPath(parseWith(ServerToWorkerMessageSchema, message))).toBe(path);
  });
});
