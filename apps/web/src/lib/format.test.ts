import { utf8ByteLength } from '@svc/text';
import {
  clipOutput,
  elapsedMs,
  formatBytes,
  formatClock,
  formatDuration,
  formatTime,
  previewLines,
  shorten,
} from './format';

describe('shorten', () => {
  it('keeps short text and cuts long text with an ellipsis, within the limit', () => {
    expect(shorten('Shop', 10)).toBe('Shop');
    expect(shorten('Shop', 4)).toBe('Shop');
    expect(shorten('abcdefghij', 5)).toBe('abcd…');
  });

  it('never splits an emoji or a combined character', () => {
    // 3 code points would end inside the ZWJ sequence 👩‍💻: the cut falls before it
    expect(shorten('ab👩‍💻cd', 4)).toBe('ab…');
    expect(shorten('ab👩‍💻cd', 6)).toBe('ab👩‍💻…');
    expect(shorten('ab👩‍💻cd', 7)).toBe('ab👩‍💻cd');
  });
});

describe('previewLines', () => {
  it('shows the first non-blank lines and marks that more follow', () => {
    expect(previewLines('\nBuild a shop\n\nwith a cart\nand payments', 2, 200)).toBe('Build a shop\nwith a cart…');
    expect(previewLines('one line', 2, 200)).toBe('one line');
  });

  it('cuts long lines to the character budget', () => {
    expect(previewLines('x'.repeat(50), 2, 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('clipOutput', () => {
  it('cuts to the byte budget on a character boundary and says how much was left out', () => {
    const text = 'é'.repeat(10); // 20 bytes
    const { text: cut, omittedBytes } = clipOutput(text, 5);
    expect(cut).toBe('éé');
    expect(utf8ByteLength(cut) + omittedBytes).toBe(20);
  });
});

describe('formatBytes and formatDuration', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1536, '1.5 KiB'],
    [5 * 1024 * 1024, '5.0 MiB'],
    [300 * 1024 * 1024, '300 MiB'],
  ])('formats %d bytes as %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it.each([
    [850, '850 ms'],
    [1234, '1.23 s'],
    [45_000, '45.0 s'],
    [125_000, '2 min 5 s'],
    [59_600, '59.6 s'],
    [3_599_400, '59 min 59 s'],
    [3_600_000, '1 h 0 min'],
    [3_725_000, '1 h 2 min'],
  ])('formats %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('formatDuration on bad input', () => {
  it('shows a dash for negative or non-finite values rather than nonsense', () => {
    expect(formatDuration(-5)).toBe('–');
    expect(formatDuration(Number.NaN)).toBe('–');
  });
});

describe('elapsedMs', () => {
  const start = '2026-11-25T10:00:00.000Z';
  it('measures from start to finish, or to now while running', () => {
    expect(elapsedMs(start, '2026-11-25T10:02:05.500Z')).toBe(125_500);
    expect(elapsedMs(start, null, Date.parse('2026-11-25T10:00:07Z'))).toBe(7000);
  });

  it('is null before the start and never negative', () => {
    expect(elapsedMs(null, null)).toBeNull();
    expect(elapsedMs('not a time', null)).toBeNull();
    expect(elapsedMs(start, '2026-11-25T09:59:00Z')).toBe(0);
  });
});

describe('formatTime and formatClock', () => {
  // a local wall-clock time, so the expectations hold in any time zone the tests run in
  const local = new Date(2026, 10, 25, 9, 5, 7).toISOString();

  it('show the seconds', () => {
    expect(formatClock(local)).toBe('09:05:07');
    expect(formatTime(local)).toMatch(/\b0?9:05:07\b/);
    expect(formatTime(local)).toContain('2026');
  });

  it('give back text that is not a time unchanged', () => {
    expect(formatTime('yesterday')).toBe('yesterday');
    expect(formatClock('yesterday')).toBe('yesterday');
  });
});
