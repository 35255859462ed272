import { omittedOutputMarker } from '@svc/text';
import { OutputTimes, outputLineTimes } from './line-times';

const START = Date.parse('2026-11-28T10:00:00.000Z');

describe('the line times of a log entry (decision 0080)', () => {
  it('gives each line the time of the piece it starts in, the status line none, pairs where it changes', () => {
    const times = new OutputTimes(START, 1024);
    times.push(Buffer.byteLength('one\ntw'), START + 100);
    times.push(Buffer.byteLength('o\nthree\n'), START + 2_500);
    times.push(Buffer.byteLength('four\n'), START + 2_500);
    expect(outputLineTimes('[exit code 0]\none\ntwo\nthree\nfour\n', times, new Date(START))).toEqual({
      started_at: '2026-11-28T10:00:00.000Z',
      lines: [
        [0, null],
        [1, 100],
        [3, 2_500],
      ],
    });
  });

  it('maps a cut output: head lines from the start, none for the marker, tail lines from the end', () => {
    const edge = 64;
    const times = new OutputTimes(START, edge);
    const lines = Array.from({ length: 100 }, (_, n) => `line ${n}\n`);
    lines.forEach((line, n) => times.push(Buffer.byteLength(line), START + n * 1_000));
    const whole = lines.join('');
    const head = lines.slice(0, 3).join('');
    const tail = lines.slice(97).join('');
    const omitted = Buffer.byteLength(whole) - head.length - tail.length;
    const text = `[exit code 0]\n${head.slice(0, -1)}${omittedOutputMarker(omitted)}${tail}`;
    expect(outputLineTimes(text, times, new Date(START))!.lines).toEqual([
      [0, null],
      [1, 0],
      [2, 1_000],
      [3, 2_000],
      [4, null],
      [5, 97_000],
      [6, 98_000],
      [7, 99_000],
    ]);
  });

  it('keeps marks only for the edges, however long the output', () => {
    const times = new OutputTimes(START, 16);
    for (let n = 0; n < 10_000; n++) times.push(8, START + n);
    expect(times.at(0)).toBe(0);
    expect(times.at(8 * 9_999)).toBe(9_999);
    expect(times.at(8 * 5_000)).toBeNull();
    expect(JSON.stringify(times).length).toBeLessThan(400);
  });

  it('gives none for a command that wrote nothing', () => {
    expect(outputLineTimes('[exit code 0]\n(no output)', new OutputTimes(START, 64), new Date(START))).toBeUndefined();
  });
});
