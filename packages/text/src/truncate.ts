import { assertBudget, assertText } from './errors';
import { graphemes } from './graphemes';
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
  marker(omitted: number): string;
}

const BYTES: Unit = { measure: utf8ByteLength, marker: (n) => `…[truncated ${n} bytes]` };
const CODE_POINTS: Unit = { measure: codePointLength, marker: (n) => `…[truncated ${n} characters]` };

/**
 * The longest grapheme-aligned prefix of `text` that fits `budget` (with the marker, when asked and
 * when it fits at all). Lone surrogates become U+FFFD first, so the result is always well-formed.
 */
function truncateBy(unit: Unit, input: string, budget: number, withMarker: boolean): { text: string; omitted: number } {
  const text = replaceLoneSurrogates(input);
  const total = unit.measure(text);
  if (total <= budget) return { text, omitted: 0 };

  const markerCost = (kept: number): number => unit.measure(unit.marker(total - kept));
  // The cost kept + markerCost(kept) never decreases as kept grows (a grapheme adds at least as many
  // units as the count's digits can shrink), so the first grapheme that does not fit ends the prefix.
  const marked = withMarker && markerCost(0) <= budget;
  const fits = (kept: number): boolean => (marked ? kept + markerCost(kept) : kept) <= budget;

  let kept = 0;
  let end = 0;
  for (const { segment, index } of graphemes(text)) {
    const next = kept + unit.measure(segment);
    if (!fits(next)) break;
    kept = next;
    end = index + segment.length;
  }
  const omitted = total - kept;
  return { text: text.slice(0, end) + (marked ? unit.marker(omitted) : ''), omitted };
}

/** Cuts `text` to at most `maxBytes` of UTF-8, never inside a character or a grapheme cluster. */
export function truncateUtf8(text: string, maxBytes: number, options: TruncateOptions = {}): TruncateUtf8Result {
  assertText(text);
  assertBudget(maxBytes, 'maxBytes');
  const { text: out, omitted } = truncateBy(BYTES, text, maxBytes, options.marker === true);
  return { text: out, truncated: omitted > 0, omittedBytes: omitted };
}

/** `truncateUtf8(...).text`. */
export function truncateBytes(text: string, maxBytes: number, options?: TruncateOptions): string {
  return truncateUtf8(text, maxBytes, options).text;
}

/** Cuts `text` to at most `maxChars` Unicode code points, never inside a grapheme cluster. */
export function truncateCodePoints(text: string, maxChars: number, options: TruncateOptions = {}): TruncateCodePointsResult {
  assertText(text);
  assertBudget(maxChars, 'maxChars');
  const { text: out, omitted } = truncateBy(CODE_POINTS, text, maxChars, options.marker === true);
  return { text: out, truncated: omitted > 0, omittedChars: omitted };
}

/** `truncateCodePoints(...).text`. */
export function truncateChars(text: string, maxChars: number, options?: TruncateOptions): string {
  return truncateCodePoints(text, maxChars, options).text;
}
