import { assertBudget, assertText } from './errors';
import { graphemeBoundaryAtOrBefore } from './graphemes';
import { codePointLength, replaceLoneSurrogates, utf8ByteLength } from './utf8';

export interface TruncateOptions {
  /** Append "…[truncated N bytes]" (or "… characters]") when text is cut; the marker counts against the budget. */
  marker?: boolean;
}

export interface TruncateUtf8Result {
  text: string;
  truncated: boolean;
  /** UTF-8 bytes of the input left out (0 when not truncated). */
  omittedBytes: number;
}

export interface TruncateCodePointsResult {
  text: string;
  truncated: boolean;
  /** Code points of the input left out (0 when not truncated). */
  omittedChars: number;
}

interface Unit {
  measure(text: string): number;
  /** What one code point adds to `measure`. */
  codePointCost(codePoint: number): number;
  marker(omitted: number): string;
}

const BYTES: Unit = {
  measure: utf8ByteLength,
  codePointCost: (cp) => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4),
  marker: (n) => `…[truncated ${n} bytes]`,
};
const CODE_POINTS: Unit = {
  measure: codePointLength,
  codePointCost: () => 1,
  marker: (n) => `…[truncated ${n} characters]`,
};

function decimalDigits(n: number): number {
  let digits = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  return digits;
}

/** End (UTF-16 index) of the longest code-point-aligned prefix of `text` whose measure `fits`. */
function longestFittingPrefix(unit: Unit, text: string, fits: (measure: number) => boolean): number {
  let end = 0;
  let measure = 0;
  while (end < text.length) {
    const codePoint = text.codePointAt(end) as number;
    const next = measure + unit.codePointCost(codePoint);
    if (!fits(next)) break;
    measure = next;
    end += codePoint > 0xffff ? 2 : 1;
  }
  return end;
}

/**
 * The longest grapheme-aligned prefix of `text` that fits `budget` (with the marker, when asked and
 * when it fits at all). Lone surrogates in the result become U+FFFD, so it is always well-formed; they
 * are measured, stepped over and segmented exactly like U+FFFD, so only the result needs replacing.
 */
function truncateBy(unit: Unit, text: string, budget: number, withMarker: boolean): { text: string; omitted: number } {
  const total = unit.measure(text);
  if (total <= budget) return { text: replaceLoneSurrogates(text), omitted: 0 };

  // The marker's cost is a fixed part plus one unit per digit of the omitted count (checked per character).
  const markerFixed = unit.measure(unit.marker(0)) - 1;
  const markerCost = (kept: number): number => markerFixed + decimalDigits(total - kept);
  // kept + markerCost(kept) never decreases as kept grows (a character adds at least as much as the
  // count's digits can shrink), so the longest fitting prefix is found by walking forward.
  const marked = withMarker && markerCost(0) <= budget;
  const fits = (kept: number): boolean => (marked ? kept + markerCost(kept) : kept) <= budget;

  // Grapheme boundaries are a subset of code point boundaries, so the answer is the last grapheme
  // boundary within the longest fitting code-point prefix.
  const end = graphemeBoundaryAtOrBefore(text, longestFittingPrefix(unit, text, fits));
  const kept = replaceLoneSurrogates(text.slice(0, end));
  const omitted = total - unit.measure(kept);
  return { text: kept + (marked ? unit.marker(omitted) : ''), omitted };
}

/** Cuts `text` to at most `maxBytes` of UTF-8, never inside a character or a grapheme cluster. */
export function truncateUtf8(text: string, maxBytes: number, options?: TruncateOptions): TruncateUtf8Result {
  assertText(text);
  assertBudget(maxBytes, 'maxBytes');
  const { text: out, omitted } = truncateBy(BYTES, text, maxBytes, options?.marker === true);
  return { text: out, truncated: omitted > 0, omittedBytes: omitted };
}

/** `truncateUtf8(...).text`. */
export function truncateBytes(text: string, maxBytes: number, options?: TruncateOptions): string {
  return truncateUtf8(text, maxBytes, options).text;
}

/** Cuts `text` to at most `maxChars` Unicode code points, never inside a grapheme cluster. */
export function truncateCodePoints(
  text: string,
  maxChars: number,
  options?: TruncateOptions,
): TruncateCodePointsResult {
  assertText(text);
  assertBudget(maxChars, 'maxChars');
  const { text: out, omitted } = truncateBy(CODE_POINTS, text, maxChars, options?.marker === true);
  return { text: out, truncated: omitted > 0, omittedChars: omitted };
}

/** `truncateCodePoints(...).text`. */
export function truncateChars(text: string, maxChars: number, options?: TruncateOptions): string {
  return truncateCodePoints(text, maxChars, options).text;
}
