import { fallbackGraphemes } from './fallback-graphemes';

export interface Grapheme {
  segment: string;
  index: number;
}

let segmenter: Intl.Segmenter | null | undefined;

function graphemeSegmenter(): Intl.Segmenter | null {
  if (segmenter === undefined) {
    segmenter = typeof Intl === 'object' && typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;
  }
  return segmenter;
}

/** Grapheme clusters of `text`, lazily: Intl.Segmenter where the engine has it, a UAX #29 subset otherwise. */
export function graphemes(text: string): Iterable<Grapheme> {
  return graphemeSegmenter()?.segment(text) ?? fallbackGraphemes(text);
}
