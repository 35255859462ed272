import { applyCarriageReturns, parseAnsi, stripAnsi } from './ansi';

const ESC = '\u001b';

describe('ANSI handling of command output', () => {
  it('turns SGR colours into styled segments and resets on 0', () => {
    expect(parseAnsi(`ok ${ESC}[1;32mPASS${ESC}[0m tests ${ESC}[91mFAIL${ESC}[39m!`)).toEqual([
      { text: 'ok ', fg: null, bg: null, bold: false },
      { text: 'PASS', fg: 2, bg: null, bold: true },
      { text: ' tests ', fg: null, bg: null, bold: false },
      { text: 'FAIL', fg: 9, bg: null, bold: false },
      { text: '!', fg: null, bg: null, bold: false },
    ]);
  });

  it('drops cursor movement and window titles, and skips 256-colour arguments', () => {
    expect(stripAnsi(`${ESC}]0;title${ESC}\\a${ESC}[2K${ESC}[1Gb${ESC}[?25lc`)).toBe('abc');
    // 38;5;196 must not be read as codes 38, 5 and 196; the 1 after it still counts
    expect(parseAnsi(`${ESC}[38;5;196;1mred`)).toEqual([{ text: 'red', fg: null, bg: null, bold: true }]);
    expect(parseAnsi(`${ESC}[41mX${ESC}[49m`)).toEqual([{ text: 'X', fg: null, bg: 1, bold: false }]);
  });

  it('keeps plain text as one segment and text without escapes untouched', () => {
    expect(parseAnsi('a\nb')).toEqual([{ text: 'a\nb', fg: null, bg: null, bold: false }]);
    expect(parseAnsi('')).toEqual([]);
  });

  it('resolves progress-bar redraws the way a terminal shows them', () => {
    expect(applyCarriageReturns('10%\r50%\r100%\ndone\r\nnext')).toBe('100%\ndone\nnext');
    // a redraw still on its way keeps the last complete state
    expect(applyCarriageReturns('10%\r20%\r')).toBe('20%');
    expect(applyCarriageReturns('no returns')).toBe('no returns');
  });
});
