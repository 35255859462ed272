import type { BrowserEvent, ExecutionLogEntry, SnapshotData, StepStatus } from '@svc/protocol';
import { EventPrinter, logEntryLines } from './render';
import { choiceLines, pickChoice } from './choices';

let seq = 0;
const envelope = { workflow_id: 'w1', ts: '2026-01-01T00:00:00.000Z' };
const TITLES = ['Write hello', 'Show it'];

const snapshot = (current: number | null, statuses: StepStatus[]): BrowserEvent => {
  const data: SnapshotData = {
    phase: current === null ? 'completed' : 'executing',
    current_step: current,
    steps: statuses.map((status, i) => ({ title: TITLES[i]!, description: '', status })),
    memo: [],
  };
  return { ...envelope, seq: ++seq, type: 'workflow_update', data: { kind: 'snapshot', data } };
};
const step = (index: number, status: StepStatus): BrowserEvent => ({
  ...envelope,
  seq: ++seq,
  type: 'plan_step_status',
  data: { index, title: TITLES[index]!, status },
});
const call = (stepIndex: number | null, tool: string, output: string): BrowserEvent => {
  const entry: ExecutionLogEntry = {
    id: `e${seq}`,
    seq: ++seq,
    step_index: stepIndex,
    tool_name: tool,
    tool_input: 'a: 1',
    output,
    is_error: false,
    revision: 0,
    duration_ms: 1,
    command: null,
    output_total_bytes: null,
    output_line_times: null,
    created_at: envelope.ts,
  };
  return { ...envelope, seq: entry.seq, type: 'log_entry', data: entry };
};
const status = (value: 'running' | 'completed'): BrowserEvent => ({
  ...envelope,
  seq: ++seq,
  type: 'workflow_status',
  data: { status: value, question: null, error: null },
});

function printed(events: BrowserEvent[]): string[] {
  const lines: string[] = [];
  const printer = new EventPrinter((line) => lines.push(line));
  for (const event of events) printer.print(event);
  printer.flush();
  return lines;
}

describe('EventPrinter', () => {
  it('prints submit_plan and advance_step under the step that called them, though they are reported after the plan change', () => {
    // The order the server streams a run in: a call that changes the plan is logged after its snapshot.
    const lines = printed([
      snapshot(0, ['running', 'pending']),
      step(0, 'running'),
      step(1, 'pending'),
      call(null, 'submit_plan', 'Plan accepted with 2 steps.'),
      status('running'),
      call(0, 'execute_on_worker', 'hello'),
      snapshot(1, ['done', 'running']),
      step(0, 'done'),
      step(1, 'running'),
      call(0, 'advance_step', 'Step completed.'),
      call(1, 'read_file', 'hello'),
      snapshot(null, ['done', 'done']),
      step(1, 'done'),
      call(1, 'advance_step', 'Step completed.'),
      status('completed'),
    ]);
    expect(lines).toEqual([
      '  $ submit_plan a: 1',
      '    | Plan accepted with 2 steps.',
      'plan (2 steps):',
      '  1. Write hello',
      '  2. Show it',
      '==> step 1/2: Write hello',
      'status: running',
      '  $ execute_on_worker a: 1',
      '    | hello',
      '  $ advance_step a: 1',
      '    | Step completed.',
      '<== step 1/2 done: Write hello',
      '==> step 2/2: Show it',
      '  $ read_file a: 1',
      '    | hello',
      '  $ advance_step a: 1',
      '    | Step completed.',
      '<== step 2/2 done: Show it',
      'status: completed',
    ]);
  });

  it('prints a plan change at once when the next line is of the step it starts, and at the end when nothing follows', () => {
    expect(printed([snapshot(0, ['running', 'pending']), step(0, 'running'), call(0, 'read_file', 'x')])).toEqual([
      'plan (2 steps):',
      '  1. Write hello',
      '  2. Show it',
      '==> step 1/2: Write hello',
      '  $ read_file a: 1',
      '    | x',
    ]);
    expect(printed([snapshot(1, ['done', 'running']), step(0, 'done'), step(1, 'running')]).slice(-2)).toEqual([
      '<== step 1/2 done: Write hello',
      '==> step 2/2: Show it',
    ]);
  });
});

describe('a question with choices', () => {
  const asked = {
    question_choices: ['yes', 'no'],
    question_default: 'no',
    question_deadline: '2026-11-28T10:42:00.000Z',
  };

  it('lists the choices by number and says when the default is taken', () => {
    expect(choiceLines(asked)).toEqual([
      'choices: 1) yes  2) no (answer one, or its number)',
      `answers "no" automatically at ${new Date(asked.question_deadline).toLocaleString()}`,
    ]);
    expect(choiceLines({ question_choices: null, question_default: null, question_deadline: null })).toEqual([]);
  });

  it('takes a choice, or its number, and leaves other text to the server to refuse', () => {
    expect(pickChoice(asked.question_choices, 'no')).toBe('no');
    expect(pickChoice(asked.question_choices, ' 1 ')).toBe('yes');
    expect(pickChoice(asked.question_choices, '3')).toBe('3');
    expect(pickChoice(null, '2')).toBe('2');
  });
});

describe('a question answered by its deadline (decision 0079)', () => {
  it('is a log entry of svc logs and svc follow, saying which default was given', () => {
    const entry: ExecutionLogEntry = {
      id: 'timeout',
      seq: 42,
      step_index: 0,
      tool_name: 'question_timeout',
      tool_input: 'question: Deploy now?\nchoices:\n  - yes\n  - no\ndefault: no\ndeadline: 2026-01-01T00:10:00.000Z\n',
      output:
        'No answer came by the deadline (2026-01-01T00:10:00.000Z): the question was answered with its default "no".',
      is_error: false,
      revision: 0,
      duration_ms: null,
      command: null,
      output_total_bytes: null,
      output_line_times: null,
      created_at: envelope.ts,
    };
    const lines = logEntryLines(entry);
    expect(lines[0]).toBe('  $ question_timeout');
    expect(lines).toContain('      default: no');
    expect(lines.at(-1)).toBe(
      '    | No answer came by the deadline (2026-01-01T00:10:00.000Z): the question was answered with its default "no".',
    );
    expect(printed([{ ...envelope, seq: 42, type: 'log_entry', data: entry }])).toEqual(lines);
  });
});
