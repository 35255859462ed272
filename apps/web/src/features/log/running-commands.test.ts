import type { CommandOutputData } from '@svc/protocol';
import {
  assembledOutput,
  insertChunk,
  lineTimes,
  runningCommandsReducer,
  type RunningCommands,
} from './running-commands';

const started: CommandOutputData = {
  call_id: 'c1',
  event: 'started',
  step_index: 1,
  command: 'npm test',
  started_at: '2026-01-01T00:00:00Z',
};
const out = (offset: number, chunk: string, stream: 'stdout' | 'stderr' = 'stdout'): CommandOutputData => ({
  call_id: 'c1',
  event: 'output',
  stream,
  offset,
  chunk,
});
const fold = (events: CommandOutputData[], max?: number): RunningCommands =>
  events.reduce<RunningCommands>((state, e) => runningCommandsReducer(state, e, max), new Map());

describe('live command output assembly', () => {
  it('orders chunks by offset within a stream and drops repeats', () => {
    const state = fold([started, out(0, 'a\n'), out(6, 'c\n'), out(2, 'b\n'), out(6, 'c\n'), out(0, 'a\n')]);
    const command = state.get('c1')!;
    expect(assembledOutput(command)).toBe('a\nb\nc\n');
    expect(command).toMatchObject({ command: 'npm test', stepIndex: 1, finished: null });
  });

  it('interleaves stdout and stderr as they arrived, each in its own offset order', () => {
    const state = fold([out(0, 'one\n'), out(0, 'warn\n', 'stderr'), out(4, 'two\n')]);
    expect(assembledOutput(state.get('c1')!)).toBe('one\nwarn\ntwo\n');
    expect(
      insertChunk([{ stream: 'stderr', offset: 9, text: 'x' }], { stream: 'stdout', offset: 0, text: 'y' }),
    ).toEqual([
      { stream: 'stderr', offset: 9, text: 'x' },
      { stream: 'stdout', offset: 0, text: 'y' },
    ]);
  });

  it('takes output heard before `started` (a page that joined mid-command) and the command once known', () => {
    const state = fold([out(100, 'late\n'), started]);
    expect(state.get('c1')).toMatchObject({ command: 'npm test', stepIndex: 1 });
    expect(assembledOutput(state.get('c1')!)).toBe('late\n');
  });

  it('records how the command finished', () => {
    const state = fold([started, { call_id: 'c1', event: 'finished', exit_code: 2, duration_ms: 1500 }]);
    expect(state.get('c1')!.finished).toEqual({ exitCode: 2, durationMs: 1500 });
  });

  it('bounds the kept output, newest first, and never lets a dropped chunk come back', () => {
    const state = fold([out(0, 'aaaa'), out(4, 'bbbb'), out(8, 'cccc'), out(0, 'aaaa')], 8);
    const command = state.get('c1')!;
    expect(assembledOutput(command)).toBe('bbbbcccc');
    expect(command.droppedChars).toBe(4);
  });

  it('returns the same state for a repeated chunk (nothing to render again)', () => {
    const once = fold([out(0, 'a')]);
    expect(runningCommandsReducer(once, out(0, 'a'))).toBe(once);
  });

  it('gives each line the time of the chunk it starts in', () => {
    const timed = (offset: number, chunk: string, at?: string): CommandOutputData => ({
      ...out(offset, chunk),
      ...(at ? { at } : {}),
    });
    const state = fold([started, timed(0, 'a\nb', 'T1'), timed(3, 'c\nd\n', 'T2'), timed(7, 'e')]);
    expect(lineTimes(state.get('c1')!)).toEqual(['T1', 'T1', 'T2', null]);
  });
});
