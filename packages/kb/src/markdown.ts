// Just enough CommonMark block structure for splitting: line endings, ATX headings, fenced code.

export interface AtxHeading {
  level: number;
  text: string;
}

export interface ScannedLine {
  line: string;
  /** Part of a fenced code block (fence lines included): never a heading. */
  fenced: boolean;
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;
const CLOSING_SEQUENCE = /(?:^|[ \t]+)#+$/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** Lines of `text`; CR LF, CR and LF all end a line. */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** The ATX heading on `line`, without its optional closing `#` sequence, or null. */
export function parseAtxHeading(line: string): AtxHeading | null {
  const match = ATX.exec(line);
  if (!match) return null;
  const text = (match[2] ?? '').replace(CLOSING_SEQUENCE, '').trim();
  return { level: (match[1] as string).length, text };
}

/** Each line with whether it sits in a fenced code block (``` or ~~~; closed by a fence at least as long). */
export function* scanLines(text: string): Generator<ScannedLine> {
  let fence: string | null = null;
  for (const line of splitLines(text)) {
    if (fence !== null) {
      const close = FENCE_CLOSE.exec(line);
      if (close && (close[1] as string)[0] === fence[0] && (close[1] as string).length >= fence.length) fence = null;
      yield { line, fenced: true };
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    // A backtick fence's info string may not contain a backtick (that line is inline code instead).
    if (open && !((open[1] as string)[0] === '`' && (open[2] as string).includes('`'))) {
      fence = open[1] as string;
      yield { line, fenced: true };
      continue;
    }
    yield { line, fenced: false };
  }
}

/** `lines` without blank lines at either end. */
export function trimBlankLines(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] as string).trim() === '') start++;
  while (end > start && (lines[end - 1] as string).trim() === '') end--;
  return lines.slice(start, end);
}
