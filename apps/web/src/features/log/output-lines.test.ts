import { parseAnsi } from './ansi';
import {
  lineAnchor,
  lineCount,
  markMatches,
  matchingLines,
  parseLineAnchor,
  segmentLines,
  storedLineTimes,
} from './output-lines';

const plain = (text: string) => ({ text, fg: null, bg: null, bold: false });

describe('output lines', () => {
  it('cuts styled segments into lines, keeping styles, without an empty last line', () => {
    const lines = segmentLines(parseAnsi('one\n\u001b[31mtwo\nthree\u001b[0m end\n'));
    expect(lines.map((l) => l.map((s) => s.text).join(''))).toEqual(['one', 'two', 'three end']);
    expect(lines[2]![0]).toMatchObject({ text: 'three', fg: 1 });
    expect(segmentLines(parseAnsi('a\n\nb')).length).toBe(3);
  });

  it('finds the lines holding the query, case-insensitively', () => {
    const lines = segmentLines(parseAnsi('Error: one\nfine\nanother ERROR\n'));
    expect(matchingLines(lines, 'error')).toEqual([0, 2]);
    expect(matchingLines(lines, '  ')).toEqual([]);
  });

  it('marks every match, also across style boundaries', () => {
    const pieces = markMatches([plain('a fo'), { ...plain('o b foo'), bold: true }], 'FOO');
    expect(pieces.map((p) => [p.text, p.match, p.bold])).toEqual([
      ['a ', false, false],
      ['fo', true, false],
      ['o', true, true],
      [' b ', false, true],
      ['foo', true, true],
    ]);
    expect(markMatches([plain('x')], '').map((p) => p.match)).toEqual([false]);
  });

  it('reads back the permalinks it makes, and nothing else', () => {
    expect(parseLineAnchor(`#${lineAnchor(12, 40)}`)).toEqual({ seq: 12, line: 40 });
    expect(parseLineAnchor('#log-x-L1')).toBeNull();
    expect(parseLineAnchor('')).toBeNull();
  });
});

describe('stored line times (decision 0080)', () => {
  it('spreads the pairs over the lines, null where the worker gave none', () => {
    const times = {
      started_at: '2026-11-28T10:00:00.000Z',
      lines: [
        [0, null],
        [1, 1_500],
        [3, null],
        [4, 61_000],
      ] as [number, number | null][],
    };
    expect(storedLineTimes(times, lineCount('[exit code 0]\na\nb\n…[9 bytes of output omitted]…\nc\nd\n'))).toEqual([
      null,
      '2026-11-28T10:00:01.500Z',
      '2026-11-28T10:00:01.500Z',
      null,
      '2026-11-28T10:01:01.000Z',
      '2026-11-28T10:01:01.000Z',
    ]);
    // pairs past the shown lines are left out
    expect(storedLineTimes(times, 2)).toEqual([null, '2026-11-28T10:00:01.500Z']);
  });
});
