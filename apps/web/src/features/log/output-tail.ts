import type { AnsiSegment } from './ansi';

/**
 * Where the shown end of a long output starts: the last `maxLines` lines, at most `maxChars` of them
 * (never half a surrogate pair), and how many whole lines stay hidden before it.
 */
export function outputTail(text: string, maxLines: number, maxChars: number): { start: number; hiddenLines: number } {
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  // walk back over `maxLines` line breaks: the shown lines begin after the last one found
  let start = 0;
  let cursor = end;
  for (let found = 0; found < maxLines && cursor > 0; found++) {
    const newline = text.lastIndexOf('\n', cursor - 1);
    if (newline === -1) break;
    if (found === maxLines - 1) start = newline + 1;
    cursor = newline;
  }
  if (end - start > maxChars) start = end - maxChars;
  if (/[\uDC00-\uDFFF]/.test(text[start] ?? '')) start++;
  const hiddenLines = start === 0 ? 0 : text.slice(0, start).split('\n').length - 1;
  return { start, hiddenLines };
}

/** The segments from character `start` of their joined text on (styles kept). */
export function segmentsFrom(segments: readonly AnsiSegment[], start: number): AnsiSegment[] {
  const result: AnsiSegment[] = [];
  let at = 0;
  for (const segment of segments) {
    const next = at + segment.text.length;
    if (next > start) result.push(at >= start ? segment : { ...segment, text: segment.text.slice(start - at) });
    at = next;
  }
  return result;
}
