import type { BrowserCommandOutputMessage } from './ws-browser';
import { RunningOutput } from './running-output';

const started = (workflowId: string, callId: string): BrowserCommandOutputMessage => ({
  type: 'command_output',
  workflow_id: workflowId,
  data: { call_id: callId, event: 'started', step_index: 2, command: 'make', started_at: '2026-11-28T00:00:00.000Z' },
});
const output = (workflowId: string, callId: string, offset: number, chunk: string): BrowserCommandOutputMessage => ({
  type: 'command_output',
  workflow_id: workflowId,
  data: { call_id: callId, event: 'output', stream: 'stdout', offset, chunk },
});
const finished = (workflowId: string, callId: string): BrowserCommandOutputMessage => ({
  type: 'command_output',
  workflow_id: workflowId,
  data: { call_id: callId, event: 'finished', exit_code: 0, duration_ms: 1 },
});

describe('RunningOutput', () => {
  it('replays a workflow’s running commands, started first, and forgets a finished one', () => {
    const running = new RunningOutput();
    running.record(output('wf', 'a', 0, 'one\n'));
    running.record(started('wf', 'a'));
    running.record(output('other', 'b', 0, 'elsewhere\n'));
    expect(running.replay('wf')).toEqual([started('wf', 'a'), output('wf', 'a', 0, 'one\n')]);
    running.record(finished('wf', 'a'));
    expect(running.replay('wf')).toEqual([]);
    expect(running.replay('other')).toEqual([output('other', 'b', 0, 'elsewhere\n')]);
  });

  it('keeps the newest output within its byte bound, whole chunks, and at most so many commands', () => {
    const running = new RunningOutput(10, 2);
    running.record(started('wf', 'a'));
    for (const [offset, chunk] of [
      [0, 'aaaa'],
      [4, 'bbbb'],
      [8, 'cccc'],
    ] as const)
      running.record(output('wf', 'a', offset, chunk));
    expect(running.replay('wf').map((m) => (m.data.event === 'output' ? m.data.chunk : m.data.event))).toEqual([
      'started',
      'bbbb',
      'cccc',
    ]);
    running.record(started('wf', 'b'));
    running.record(started('wf', 'c'));
    expect(running.replay('wf').map((m) => m.data.call_id)).toEqual(['b', 'c']);
  });
});
