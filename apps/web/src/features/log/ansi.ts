/** A run of output text with one look (SGR colours 0-15, bold), as a CI log shows it. */
export interface AnsiSegment {
  text: string;
  fg: number | null;
  bg: number | null;
  bold: boolean;
}

// CSI sequences (ESC [ params final), OSC sequences (ESC ] ... BEL or ESC \), and lone two-byte escapes.
// eslint-disable-next-line no-control-regex
const ESCAPE = /\u001b\[([0-9;?]*)([@-~])|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]?/g;

/** The text without any terminal escape sequence. */
export function stripAnsi(text: string): string {
  return text.replace(ESCAPE, '');
}

/**
 * What a terminal would leave of each line after carriage returns (progress bars redraw a line with
 * `\r`): the text after the last `\r` of the line. `\r\n` is a plain line end.
 */
export function applyCarriageReturns(text: string): string {
  if (!text.includes('\r')) return text;
  return text
    .replace(/\r+\n/g, '\n')
    .split('\n')
    .map((line) => {
      const cut = line.lastIndexOf('\r');
      // a trailing \r (the line is being redrawn) keeps what is there until the redraw arrives
      if (cut === line.length - 1) return applyCarriageReturns(line.slice(0, -1));
      return cut === -1 ? line : line.slice(cut + 1);
    })
    .join('\n');
}

interface Style {
  fg: number | null;
  bg: number | null;
  bold: boolean;
}

const PLAIN: Style = { fg: null, bg: null, bold: false };

/** The eight colours from `first` on, as the palette indices from `index` on (`fg` or `bg`). */
function colourCodes(first: number, key: 'fg' | 'bg', index: number): [number, Partial<Style>][] {
  return Array.from({ length: 8 }, (_, n) => [first + n, { [key]: index + n }]);
}

/** What each SGR code sets: reset, bold on/off, the 16 foreground and background colours and their defaults. */
const SGR_CODES = new Map<number, Partial<Style>>([
  [0, PLAIN],
  [1, { bold: true }],
  [22, { bold: false }],
  ...colourCodes(30, 'fg', 0),
  ...colourCodes(90, 'fg', 8),
  [39, { fg: null }],
  ...colourCodes(40, 'bg', 0),
  ...colourCodes(100, 'bg', 8),
  [49, { bg: null }],
]);

/** Extended colours (38 or 48, then `5;n` or `2;r;g;b`): the parameters to skip after 38/48, by its mode. */
const EXTENDED_COLOUR = new Set([38, 48]);
const EXTENDED_ARGUMENTS = new Map([
  [5, 2],
  [2, 4],
]);

/** Applies one SGR parameter list (`1;31`) to a style; unknown codes (256/true colour, italics) are ignored. */
function applySgr(style: Style, params: string): Style {
  const codes = params === '' ? [0] : params.split(';').map((p) => (p === '' ? 0 : Number(p)));
  let next = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    // skip an extended colour's arguments rather than misread them as codes
    if (EXTENDED_COLOUR.has(code)) i += EXTENDED_ARGUMENTS.get(codes[i + 1]!) ?? 0;
    else next = { ...next, ...SGR_CODES.get(code) };
  }
  return next;
}

/**
 * Output text as segments of one style each: SGR colour codes become styles, every other escape
 * sequence (cursor movement, titles) is dropped, and carriage-return redraws are resolved.
 */
export function parseAnsi(text: string): AnsiSegment[] {
  const source = applyCarriageReturns(text);
  const segments: AnsiSegment[] = [];
  let style = PLAIN;
  let last = 0;
  const push = (chunk: string) => {
    if (chunk === '') return;
    const previous = segments[segments.length - 1];
    if (previous && previous.fg === style.fg && previous.bg === style.bg && previous.bold === style.bold)
      previous.text += chunk;
    else segments.push({ text: chunk, ...style });
  };
  for (const match of source.matchAll(ESCAPE)) {
    push(source.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] === 'm') style = applySgr(style, match[1] ?? '');
  }
  push(source.slice(last));
  return segments;
}
