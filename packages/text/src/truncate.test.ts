import { TextInputError } from './errors';
import { truncateBytes, truncateChars, truncateCodePoints, truncateUtf8 } from './truncate';

describe('truncateUtf8', () => {
  it('returns short text unchanged and untruncated', () => {
    expect(truncateUtf8('héllo', 6)).toEqual({ text: 'héllo', truncated: false, omittedBytes: 0 });
    expect(truncateUtf8('', 0)).toEqual({ text: '', truncated: false, omittedBytes: 0 });
  });

  it('never cuts inside a multi-byte character', () => {
    // 'é' is 2 bytes at offsets 1..2: a 2-byte budget must stop before it.
    expect(truncateUtf8('héllo', 2)).toEqual({ text: 'h', truncated: true, omittedBytes: 5 });
    expect(truncateBytes('€€€', 8)).toBe('€€');
    expect(truncateBytes('a😀', 4)).toBe('a');
  });

  it('keeps an emoji with a skin tone modifier whole', () => {
    expect(truncateBytes('👍🏽👍🏽', 15)).toBe('👍🏽');
    expect(truncateBytes('👍🏽', 7)).toBe('');
  });

  it('keeps a ZWJ sequence whole', () => {
    const family = '👨‍👩‍👧'; // 18 bytes
    expect(truncateBytes(`ok${family}`, 19)).toBe('ok');
    expect(truncateBytes(`ok${family}`, 20)).toBe(`ok${family}`);
  });

  it('keeps a flag (regional indicator pair) whole', () => {
    expect(truncateBytes('🇫🇷🇩🇪', 12)).toBe('🇫🇷');
  });

  it('keeps a letter with its combining marks', () => {
    expect(truncateBytes('ae\u0301\u0323', 4)).toBe('a');
    expect(truncateBytes('ae\u0301\u0323', 6)).toBe('ae\u0301\u0323');
  });

  it('cuts long text without ASCII at a character boundary', () => {
    expect(truncateBytes('中'.repeat(10_000), 1000)).toBe('中'.repeat(333));
    expect(truncateUtf8(`${'👍🏽'.repeat(1000)}`, 4001)).toEqual({
      text: '👍🏽'.repeat(500),
      truncated: true,
      omittedBytes: 4000,
    });
  });

  it('keeps CR LF together', () => {
    expect(truncateBytes('a\r\nb', 2)).toBe('a');
  });

  it('appends a marker that counts against the budget', () => {
    const input = 'x'.repeat(100);
    const result = truncateUtf8(input, 40, { marker: true });
    expect(result.text).toBe(`${'x'.repeat(17)}…[truncated 83 bytes]`);
    expect(Buffer.byteLength(result.text)).toBe(40);
    expect(result).toMatchObject({ truncated: true, omittedBytes: 83 });
  });

  it('uses the longest prefix when the omitted count loses a digit', () => {
    // The marker is 21 bytes plus the digits of N. Keeping 100 of 200 leaves N = 100 (marker 24, total
    // 124); keeping 101 leaves N = 99 (marker 23, total 124 too), so 101 is the longest prefix for 124.
    const result = truncateUtf8('y'.repeat(200), 124, { marker: true });
    expect(result.text).toBe(`${'y'.repeat(101)}…[truncated 99 bytes]`);
    expect(Buffer.byteLength(result.text)).toBe(124);
  });

  it('drops the marker when the budget cannot hold it, staying within budget', () => {
    expect(truncateUtf8('abcdefghij'.repeat(3), 5, { marker: true })).toEqual({
      text: 'abcde',
      truncated: true,
      omittedBytes: 25,
    });
  });

  it('gives the empty string for a zero budget', () => {
    expect(truncateUtf8('abc', 0, { marker: true })).toEqual({ text: '', truncated: true, omittedBytes: 3 });
  });

  it('replaces lone surrogates with U+FFFD so the output is valid UTF-8', () => {
    expect(truncateBytes('a\ud83db', 10)).toBe('a\ufffdb');
    expect(truncateBytes('a\ud83db', 3)).toBe('a');
  });

  it('throws a TextInputError for a bad budget or a non-string', () => {
    for (const budget of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => truncateUtf8('abc', budget)).toThrow(TextInputError);
    }
    expect(() => truncateUtf8(null as unknown as string, 3)).toThrow(expect.objectContaining({ code: 'invalid_text' }));
  });
});

describe('truncateCodePoints', () => {
  it('counts code points, not UTF-16 units or bytes', () => {
    expect(truncateChars('a😀b€', 3)).toBe('a😀b');
    expect(truncateCodePoints('a😀b€', 3)).toEqual({ text: 'a😀b', truncated: true, omittedChars: 1 });
  });

  it('does not split a grapheme cluster', () => {
    // 👍🏽 is 2 code points; ZWJ family is 5.
    expect(truncateChars('a👍🏽', 2)).toBe('a');
    expect(truncateChars('👨‍👩‍👧x', 4)).toBe('');
  });

  it('appends a marker in characters', () => {
    const result = truncateCodePoints('é'.repeat(50), 30, { marker: true });
    expect(result.text).toBe(`${'é'.repeat(4)}…[truncated 46 characters]`);
    expect([...result.text]).toHaveLength(30);
  });

  it('throws for a bad budget', () => {
    expect(() => truncateChars('abc', -3)).toThrow(expect.objectContaining({ code: 'invalid_budget' }));
  });
});
