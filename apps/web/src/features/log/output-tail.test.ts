import { outputTail, segmentsFrom } from './output-tail';

const tail = (text: string, lines: number, chars: number) => {
  const { start, hiddenLines } = outputTail(text, lines, chars);
  return { text: text.slice(start), hiddenLines };
};

describe('outputTail (long output collapsed to its end, as a CI log does)', () => {
  it('keeps short output whole', () => {
    expect(tail('a\nb\n', 3, 100)).toEqual({ text: 'a\nb\n', hiddenLines: 0 });
    expect(tail('', 3, 100)).toEqual({ text: '', hiddenLines: 0 });
  });

  it('keeps the last lines and counts the hidden ones', () => {
    expect(tail('1\n2\n3\n4\n5\n', 2, 100)).toEqual({ text: '4\n5\n', hiddenLines: 3 });
    expect(tail('1\n2\n3', 1, 100)).toEqual({ text: '3', hiddenLines: 2 });
  });

  it('cuts a few very long lines to the character budget too, never inside a character', () => {
    expect(tail(`${'x'.repeat(50)}\n${'y'.repeat(50)}`, 10, 20)).toEqual({ text: 'y'.repeat(20), hiddenLines: 1 });
    expect(tail('ab😀cd', 5, 3).text).toBe('cd');
  });
});

describe('segmentsFrom', () => {
  it('keeps the styles of the segments it cuts into', () => {
    const red = { fg: 1, bg: null, bold: false };
    const plain = { fg: null, bg: null, bold: false };
    expect(
      segmentsFrom(
        [
          { text: 'abc', ...plain },
          { text: 'def', ...red },
        ],
        4,
      ),
    ).toEqual([{ text: 'ef', ...red }]);
  });
});
