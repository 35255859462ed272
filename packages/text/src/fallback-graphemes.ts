// Grapheme clusters for engines without Intl.Segmenter: the UAX #29 rules that matter for
// truncation (CR LF, controls, Hangul syllables, combining marks, emoji modifier and ZWJ
// sequences, flag pairs). Prepend characters and Indic conjuncts are not joined here.

type Kind =
  | 'cr'
  | 'lf'
  | 'control'
  | 'extend'
  | 'spacing'
  | 'zwj'
  | 'ri'
  | 'pict'
  | 'L'
  | 'V'
  | 'T'
  | 'LV'
  | 'LVT'
  | 'other';

const EXTEND = /^[\p{Grapheme_Extend}\p{Emoji_Modifier}\u{E0020}-\u{E007F}]$/u;
const SPACING_MARK = /^[\p{Mc}\u0e33\u0eb3]$/u;
// Lone surrogates count as ordinary characters, as in ICU (behind Intl.Segmenter).
const CONTROL = /^[\p{Cc}\p{Zl}\p{Zp}\p{Cf}]$/u;
const PREPEND_FORMAT = /^[\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u{110BD}\u{110CD}]$/u;
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;

function hangulKind(cp: number): Kind | undefined {
  if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0xa960 && cp <= 0xa97c)) return 'L';
  if ((cp >= 0x1160 && cp <= 0x11a7) || (cp >= 0xd7b0 && cp <= 0xd7c6)) return 'V';
  if ((cp >= 0x11a8 && cp <= 0x11ff) || (cp >= 0xd7cb && cp <= 0xd7fb)) return 'T';
  if (cp >= 0xac00 && cp <= 0xd7a3) return (cp - 0xac00) % 28 === 0 ? 'LV' : 'LVT';
  return undefined;
}

function kindOf(char: string, cp: number): Kind {
  if (cp === 0x0d) return 'cr';
  if (cp === 0x0a) return 'lf';
  if (cp === 0x200d) return 'zwj';
  if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return 'ri';
  const hangul = hangulKind(cp);
  if (hangul) return hangul;
  if (EXTEND.test(char)) return 'extend';
  if (SPACING_MARK.test(char)) return 'spacing';
  if (CONTROL.test(char) && !PREPEND_FORMAT.test(char)) return 'control';
  if (PICTOGRAPHIC.test(char)) return 'pict';
  return 'other';
}

interface State {
  prev: Kind;
  riRun: number; // regional indicators in a row ending at prev
  pictExtend: boolean; // the text so far ends with "Extended_Pictographic Extend*"
  zwjAfterPict: boolean; // prev is a ZWJ that follows "Extended_Pictographic Extend*"
}

function joins(state: State, cur: Kind): boolean {
  const { prev } = state;
  if (prev === 'cr' && cur === 'lf') return true; // GB3
  if (prev === 'cr' || prev === 'lf' || prev === 'control') return false; // GB4
  if (cur === 'cr' || cur === 'lf' || cur === 'control') return false; // GB5
  if (prev === 'L' && (cur === 'L' || cur === 'V' || cur === 'LV' || cur === 'LVT')) return true; // GB6
  if ((prev === 'LV' || prev === 'V') && (cur === 'V' || cur === 'T')) return true; // GB7
  if ((prev === 'LVT' || prev === 'T') && cur === 'T') return true; // GB8
  if (cur === 'extend' || cur === 'zwj' || cur === 'spacing') return true; // GB9, GB9a
  if (prev === 'zwj' && cur === 'pict' && state.zwjAfterPict) return true; // GB11
  if (prev === 'ri' && cur === 'ri' && state.riRun % 2 === 1) return true; // GB12, GB13
  return false;
}

/** Grapheme clusters of `text` from `from` (a boundary) on, with their start index in UTF-16 code units. */
export function* fallbackGraphemes(text: string, from = 0): Generator<{ segment: string; index: number }> {
  let start = from;
  let state: State | undefined;
  for (let i = from; i < text.length; ) {
    const cp = text.codePointAt(i) as number;
    const width = cp > 0xffff ? 2 : 1;
    const kind = kindOf(text.slice(i, i + width), cp);
    if (state && !joins(state, kind)) {
      yield { segment: text.slice(start, i), index: start };
      start = i;
    }
    const pictExtend = state?.pictExtend ?? false;
    state = {
      prev: kind,
      riRun: kind === 'ri' ? (state?.prev === 'ri' ? state.riRun + 1 : 1) : 0,
      pictExtend: kind === 'pict' || (kind === 'extend' && pictExtend),
      zwjAfterPict: kind === 'zwj' && pictExtend,
    };
    i += width;
  }
  if (start < text.length) yield { segment: text.slice(start), index: start };
}
