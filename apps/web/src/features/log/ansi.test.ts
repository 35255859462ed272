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

  describe('SGR codes', () => {
    const styleAfter = (params: string) => parseAnsi(`${ESC}[${params}mx`)[0];

    it.each([
      ['31', { fg: 1, bg: null, bold: false }],
      ['37', { fg: 7, bg: null, bold: false }],
      ['90', { fg: 8, bg: null, bold: false }],
      ['97', { fg: 15, bg: null, bold: false }],
      ['40', { fg: null, bg: 0, bold: false }],
      ['47', { fg: null, bg: 7, bold: false }],
      ['100', { fg: null, bg: 8, bold: false }],
      ['107', { fg: null, bg: 15, bold: false }],
      ['1', { fg: null, bg: null, bold: true }],
      ['1;22', { fg: null, bg: null, bold: false }],
      ['31;39', { fg: null, bg: null, bold: false }],
      ['41;49', { fg: null, bg: null, bold: false }],
      ['1;31;42;0', { fg: null, bg: null, bold: false }],
      ['1;31;42;', { fg: null, bg: null, bold: false }],
      ['1;31;42;;33', { fg: 3, bg: null, bold: false }],
      ['', { fg: null, bg: null, bold: false }],
      ['3;4;38;91', { fg: 9, bg: null, bold: false }],
      ['48;2;1;2;3;44', { fg: null, bg: 4, bold: false }],
      ['38;2;255;0;31;1', { fg: null, bg: null, bold: true }],
      ['38;5;31;42', { fg: null, bg: 2, bold: false }],
    ])('%s sets %o', (params, style) => {
      expect(styleAfter(params)).toEqual({ text: 'x', ...style });
    });

    it('keeps the style of earlier sequences until a code changes it', () => {
      expect(parseAnsi(`${ESC}[1;34ma${ESC}[43mb${ESC}[22mc`)).toEqual([
        { text: 'a', fg: 4, bg: null, bold: true },
        { text: 'b', fg: 4, bg: 3, bold: true },
        { text: 'c', fg: 4, bg: 3, bold: false },
      ]);
    });
  });
});
