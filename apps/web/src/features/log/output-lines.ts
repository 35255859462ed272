import type { OutputLineTimes } from '@svc/protocol';
import type { AnsiSegment } from './ansi';

/** A piece of one output line: its terminal style, and whether it is (part of) a search match. */
export interface LinePiece extends AnsiSegment {
  match: boolean;
}

/** The segments cut into lines (the line breaks themselves dropped); a trailing break opens no empty line. */
export function segmentLines(segments: readonly AnsiSegment[]): AnsiSegment[][] {
  const lines: AnsiSegment[][] = [[]];
  for (const segment of segments) {
    const parts = segment.text.split('\n');
    parts.forEach((text, i) => {
      if (i > 0) lines.push([]);
      if (text !== '') lines[lines.length - 1]!.push({ ...segment, text });
    });
  }
  if (lines.length > 1 && lines[lines.length - 1]!.length === 0) lines.pop();
  return lines;
}

/** Indices of the lines that contain `query` (case-insensitive; the line's plain text). */
export function matchingLines(lines: readonly AnsiSegment[][], query: string): number[] {
  const needle = query.trim().toLowerCase();
  if (needle === '') return [];
  const found: number[] = [];
  lines.forEach((line, i) => {
    if (
      line
        .map((s) => s.text)
        .join('')
        .toLowerCase()
        .includes(needle)
    )
      found.push(i);
  });
  return found;
}

/** One line's segments cut where `query` matches (case-insensitive), the matching pieces marked. */
export function markMatches(line: readonly AnsiSegment[], query: string): LinePiece[] {
  const needle = query.trim().toLowerCase();
  if (needle === '') return line.map((s) => ({ ...s, match: false }));
  const plain = line.map((s) => s.text).join('');
  const lower = plain.toLowerCase();
  // `toLowerCase` can change a string's length (e.g. "İ"): then match whole lines, not places in them
  if (lower.length !== plain.length) return line.map((s) => ({ ...s, match: lower.includes(needle) }));
  const inMatch = new Uint8Array(plain.length);
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + needle.length))
    inMatch.fill(1, at, at + needle.length);
  const pieces: LinePiece[] = [];
  let offset = 0;
  for (const segment of line) {
    let start = 0;
    for (let i = 1; i <= segment.text.length; i++) {
      if (i < segment.text.length && inMatch[offset + i] === inMatch[offset + start]) continue;
      pieces.push({ ...segment, text: segment.text.slice(start, i), match: inMatch[offset + start] === 1 });
      start = i;
    }
    offset += segment.text.length;
  }
  return pieces;
}

/** `#log-<seq>-L<line>`: the permalink of a stored entry's output line (1-based, as shown). */
export const lineAnchor = (seq: number, line: number) => `log-${seq}-L${line}`;

/** The entry seq and line a location hash points at, or null. */
export function parseLineAnchor(hash: string): { seq: number; line: number } | null {
  const found = /^#?log-(\d+)-L(\d+)$/.exec(hash);
  return found ? { seq: Number(found[1]), line: Number(found[2]) } : null;
}

/**
 * Per line (0-based) of a stored output, when it started (decision 0080): the entry's compact pairs
 * spread over its `lineCount` lines, null where the worker gave none (status line, cut marker).
 */
export function storedLineTimes(times: OutputLineTimes, lineCount: number): (string | null)[] {
  const start = Date.parse(times.started_at);
  const out: (string | null)[] = [];
  times.lines.forEach(([first, ms], i) => {
    const next = Math.min(times.lines[i + 1]?.[0] ?? lineCount, lineCount);
    const at = ms === null ? null : new Date(start + ms).toISOString();
    for (let line = first; line < next; line++) out[line] = at;
  });
  return Array.from({ length: lineCount }, (_, line) => out[line] ?? null);
}

/** How many lines `LogOutput` shows for `text` (a trailing line break opens none). */
export const lineCount = (text: string) => text.replace(/\n$/, '').split('\n').length;
