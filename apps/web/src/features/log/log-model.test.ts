import type { CommandOutputData } from '@svc/protocol';
import {
  commandOf,
  groupLog,
  logItems,
  matchesFilter,
  NO_FILTER,
  timedOutQuestionOf,
  toolNames,
  type LogEntry,
} from './log-model';
import { runningCommandsReducer, type RunningCommands } from './running-commands';

let nextSeq = 0;
const entry = (over: Partial<LogEntry> = {}): LogEntry => {
  const seq = over.seq ?? ++nextSeq;
  return {
    id: `e${seq}`,
    seq,
    step_index: 0,
    tool_name: 'execute_on_worker',
    tool_input: 'command: ls\n',
    output: '',
    is_error: false,
    created_at: '2026-01-01T00:00:00Z',
    revision: 0,
    duration_ms: 10,
    command: 'ls',
    output_total_bytes: null,
    output_line_times: null,
    ...over,
  };
};

/** A command_output event without its call id (the helpers add one). */
type EventOf = {
  [K in CommandOutputData['event']]: Omit<Extract<CommandOutputData, { event: K }>, 'call_id'>;
}[CommandOutputData['event']];

const running = (events: EventOf[], callId = 'c1'): RunningCommands =>
  events.reduce<RunningCommands>(
    (state, e) => runningCommandsReducer(state, { ...e, call_id: callId } as CommandOutputData),
    new Map(),
  );
const started = (command: string | null, step = 1): EventOf[] =>
  command === null
    ? [{ event: 'output', stream: 'stdout', offset: 0, chunk: 'x' }]
    : [{ event: 'started', step_index: step, command, started_at: '2026-01-01T00:00:00Z' }];
/** The last entry seq the page had when it heard of call c1. */
const after = (seq: number) => new Map([['c1', seq]]);

describe('commandOf', () => {
  it('prefers the command field and reads older entries from their YAML input', () => {
    expect(commandOf(entry({ command: 'npm test', tool_input: 'command: other\n' }))).toBe('npm test');
    expect(commandOf(entry({ command: undefined, tool_input: 'command: "echo \\"hi\\""\ntimeout_seconds: 5\n' }))).toBe(
      'echo "hi"',
    );
    expect(commandOf(entry({ command: null, tool_input: "command: 'it''s'\n" }))).toBe("it's");
    expect(commandOf(entry({ command: null, tool_input: 'command: |-\n  cd app\n  npm ci\ncwd: x\n' }))).toBe(
      'cd app\nnpm ci',
    );
    expect(commandOf(entry({ command: null, tool_name: 'write_file', tool_input: 'command: no\n' }))).toBeNull();
  });
});

describe('timedOutQuestionOf', () => {
  // the YAML the API writes for the entry (yaml's stringify, lineWidth 0)
  const timedOut = (tool_input: string) =>
    entry({ tool_name: 'question_timeout', tool_input, command: null, duration_ms: null });
  it('reads the question, its choices, the default given and the deadline of a question_timeout entry', () => {
    expect(
      timedOutQuestionOf(
        timedOut(
          'question: |-\n  Deploy the shop now?\n  Say yes: or no\nchoices:\n  - yes\n  - "no: later"\ndefault: "no: later"\ndeadline: 2026-11-28T16:00:00.000Z\n',
        ),
      ),
    ).toEqual({
      question: 'Deploy the shop now?\nSay yes: or no',
      choices: ['yes', 'no: later'],
      answer: 'no: later',
      deadline: '2026-11-28T16:00:00.000Z',
    });
    expect(timedOutQuestionOf(timedOut('question: Go on?\ndefault: go\ndeadline: 2026-11-28T16:00:00.000Z\n'))).toEqual(
      {
        question: 'Go on?',
        choices: null,
        answer: 'go',
        deadline: '2026-11-28T16:00:00.000Z',
      },
    );
  });
  it('is null for other tools and for an input without its fields', () => {
    expect(timedOutQuestionOf(entry())).toBeNull();
    expect(timedOutQuestionOf(timedOut('question: Go on?\n'))).toBeNull();
  });
});

describe('logItems: live commands and their stored entries', () => {
  it('shows a running command after the entries stored before it started', () => {
    const entries = [entry({ seq: 1 }), entry({ seq: 2 }), entry({ seq: 3, command: 'npm test', step_index: 1 })];
    const items = logItems(entries, running(started('npm test')), after(2));
    // seq 3 is the same command, stored later: it is the result, so the live one goes
    expect(items.map((i) => (i.kind === 'entry' ? i.entry.seq : 'live'))).toEqual([1, 2, 3]);
  });

  it('keeps the live command while its stored entry has not arrived, even if an older identical one exists', () => {
    const entries = [entry({ seq: 1, command: 'npm test', step_index: 1 }), entry({ seq: 2 })];
    const items = logItems(entries, running(started('npm test')), after(2));
    expect(items.map((i) => (i.kind === 'entry' ? i.entry.seq : 'live'))).toEqual([1, 2, 'live']);
    expect(items[2]).toMatchObject({ stepIndex: 1 });
  });

  it('takes nothing stored before the command as its result, whatever its text', () => {
    const entries = [entry({ seq: 1, command: 'npm test', step_index: 1 })];
    // the page already had entry 1 when it heard of the command
    expect(logItems(entries, running(started('npm test')), after(1)).map((i) => i.kind)).toEqual(['entry', 'running']);
  });

  it('does not take another step or another command as the result', () => {
    const entries = [
      entry({ seq: 3, command: 'npm test', step_index: 0 }),
      entry({ seq: 4, command: 'ls', step_index: 1 }),
    ];
    const items = logItems(entries, running(started('npm test')), after(2));
    expect(items.map((i) => i.kind)).toEqual(['running', 'entry', 'entry']);
  });

  it('pairs a command heard of mid-run (no text known) with the next stored command', () => {
    const entries = [entry({ seq: 5, tool_name: 'write_file', command: null }), entry({ seq: 6 })];
    expect(logItems(entries, running(started(null)), after(4)).map((i) => i.kind)).toEqual(['entry', 'entry']);
  });
});

describe('groupLog', () => {
  it('groups consecutive entries by revision and step, in time order', () => {
    const entries = [
      entry({ seq: 1, step_index: null }),
      entry({ seq: 2, step_index: 0 }),
      entry({ seq: 3, step_index: 0 }),
      entry({ seq: 4, step_index: 1 }),
      entry({ seq: 5, step_index: 1, revision: 1 }),
      entry({ seq: 6, step_index: 2, revision: 1 }),
    ];
    const sections = groupLog(logItems(entries, new Map()));
    expect(
      sections.map((s) => ({
        revision: s.revision,
        groups: s.groups.map((g) => [g.stepIndex, g.items.map((i) => (i.kind === 'entry' ? i.entry.seq : 0))]),
      })),
    ).toEqual([
      {
        revision: 0,
        groups: [
          [null, [1]],
          [0, [2, 3]],
          [1, [4]],
        ],
      },
      {
        revision: 1,
        groups: [
          [1, [5]],
          [2, [6]],
        ],
      },
    ]);
  });

  it('puts a live command in the revision of the entries before it; entries without a revision count as 0', () => {
    const entries = [entry({ seq: 1, revision: undefined }), entry({ seq: 2, revision: 2 })];
    const items = logItems(entries, running(started('make')), after(2));
    expect(items.map((i) => i.revision)).toEqual([0, 2, 2]);
  });
});

describe('filters', () => {
  const items = logItems(
    [
      entry({ seq: 1, tool_name: 'write_file', command: null, tool_input: 'path: a.md\n', output: 'written' }),
      entry({ seq: 2, command: 'npm test', output: '\u001b[31mFAIL\u001b[0m cart.test.ts', is_error: true }),
      entry({ seq: 3, step_index: 2, command: 'npm run build' }),
    ],
    running([
      { event: 'started', step_index: 2, command: 'make', started_at: '2026-01-01T00:00:00Z' },
      { event: 'finished', exit_code: 1, duration_ms: 5 },
    ]),
    after(3),
  );
  const seqs = (filter: Partial<typeof NO_FILTER>) =>
    items
      .filter((i) => matchesFilter(i, { ...NO_FILTER, ...filter }))
      .map((i) => (i.kind === 'entry' ? i.entry.seq : 'live'));

  it('searches tool, command, input and colour-free output, case-insensitively', () => {
    expect(seqs({ query: 'a.MD' })).toEqual([1]);
    expect(seqs({ query: 'fail cart' })).toEqual([2]);
    expect(seqs({ query: 'make' })).toEqual(['live']);
    expect(seqs({ query: '   ' })).toEqual([1, 2, 3, 'live']);
  });

  it('filters errors (including a failed live command), by tool and by step', () => {
    expect(seqs({ errorsOnly: true })).toEqual([2, 'live']);
    expect(seqs({ tool: 'write_file' })).toEqual([1]);
    expect(seqs({ step: 2 })).toEqual([3, 'live']);
    expect(toolNames(items)).toEqual(['execute_on_worker', 'write_file']);
  });
});
