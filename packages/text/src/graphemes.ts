export interface Grapheme {
  segment: string;
  index: number;
}

// V8's Intl.Segmenter spends time proportional to the whole input on every step, so a long text is
// segmented a window at a time.
const WINDOW = 256;

let segmenter: Intl.Segmenter | undefined;

/**
 * Windows start at a cluster boundary, where segmentation restarts cleanly. A boundary depends only on
 * the text before it and the character after it, so every boundary inside a window is a boundary of
 * the whole text; the cluster that reaches a window's end may go on, so it starts the next window.
 * A window never ends inside a surrogate pair.
 */
function* windowedGraphemes(intl: Intl.Segmenter, text: string, from: number): Generator<Grapheme> {
  let start = from;
  let size = WINDOW;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    let next = start;
    for (const { segment, index } of intl.segment(text.slice(start, end))) {
      const at = start + index;
      if (at + segment.length === end && end < text.length) break;
      yield { segment, index: at };
      next = at + segment.length;
    }
    // No whole cluster fitted: the window is shorter than one cluster, so widen it.
    size = next === start ? size * 2 : WINDOW;
    start = next;
  }
}

/**
 * Grapheme clusters of `text` from `from` on (which must be a cluster boundary), lazily, by
 * Intl.Segmenter (present in every supported runtime: Node >= 20.19 and current browsers).
 */
export function graphemes(text: string, from = 0): Iterable<Grapheme> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return windowedGraphemes(segmenter, text, from);
}

/**
 * Whether a cluster boundary sits at `position` whatever comes before: after a line feed (UAX #29
 * GB4), or between two ASCII characters other than CR LF (no rule joins them).
 */
function isCertainBoundary(text: string, position: number): boolean {
  if (position === 0 || position === text.length) return true;
  const before = text.charCodeAt(position - 1);
  const after = text.charCodeAt(position);
  return before === 0x0a || (before < 0x80 && after < 0x80 && !(before === 0x0d && after === 0x0a));
}

/** The last grapheme cluster boundary at or before `position` (a UTF-16 index into `text`). */
export function graphemeBoundaryAtOrBefore(text: string, position: number): number {
  if (isCertainBoundary(text, position)) return position;
  // Segment from the nearest boundary that needs no context: only the stretch up to `position`.
  let start = position - 1;
  while (!isCertainBoundary(text, start)) start--;
  let boundary = start;
  for (const { segment, index } of graphemes(text, start)) {
    if (index + segment.length > position) break;
    boundary = index + segment.length;
  }
  return boundary;
}
