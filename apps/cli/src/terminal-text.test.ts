import { terminalSafe } from './terminal-text';

describe('terminalSafe', () => {
  it('escapes C0 (but newline and tab), DEL and C1; keeps the rest, CRLF as a newline', () => {
    expect(terminalSafe('a\u001b[2Jb\u0007\u009b1m\u007f\tc\r\nd\re\u0000')).toBe(
      'a\\u001b[2Jb\\u0007\\u009b1m\\u007f\tc\nd\\u000de\\u0000',
    );
    expect(terminalSafe('plain ü – 😀\n')).toBe('plain ü – 😀\n');
  });

  it('keeps JSON parseable and its value the same', () => {
    const value = { text: 'x\u001b]52;c;aGk=\u0007\u009by\u007f' };
    expect(JSON.parse(terminalSafe(JSON.stringify(value)))).toEqual(value);
  });
});
