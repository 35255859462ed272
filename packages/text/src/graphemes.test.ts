import fc from 'fast-check';
import { fallbackGraphemes } from './fallback-graphemes';
import { graphemes } from './graphemes';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const viaIntl = (text: string): string[] => [...segmenter.segment(text)].map((s) => s.segment);
const viaFallback = (text: string): string[] => [...fallbackGraphemes(text)].map((s) => s.segment);

const NAMED: Record<string, string> = {
  'skin tone modifier': 'a👍🏽b',
  'ZWJ family': '👨‍👩‍👧‍👦!',
  'ZWJ with skin tones': '👩🏽‍🤝‍👨🏿.',
  'flags': '🇫🇷🇩🇪🇯',
  'tag sequence flag': '🏴󠁧󠁢󠁳󠁣󠁴󠁿x',
  'combining marks': 'e\u0301\u0323o\u0308',
  'CR LF': 'a\r\nb\n\rc',
  'Hangul jamo': '\u1100\u1161\u11a8\uac00\u11a8',
  'keycap': '1\ufe0f\u20e3#',
  'controls': 'a\u0000\u0301b\u200bc',
  'lone surrogates': 'a\ud83d\u0301\ude00b',
};

describe('grapheme segmentation', () => {
  it.each(Object.entries(NAMED))('fallback matches Intl.Segmenter: %s', (_name, text) => {
    expect(viaFallback(text)).toEqual(viaIntl(text));
  });

  it('keeps an emoji with its skin tone and a ZWJ sequence whole', () => {
    expect([...graphemes('a👍🏽👨‍👩‍👧')].map((g) => g.segment)).toEqual(['a', '👍🏽', '👨‍👩‍👧']);
  });

  it('reports each cluster start index', () => {
    expect([...fallbackGraphemes('é😀x')].map((g) => g.index)).toEqual([0, 1, 3]);
  });

  it('fallback matches Intl.Segmenter on mixes of the categories it handles', () => {
    const pieces = fc.constantFrom(
      'a', 'Z', '7', ' ', 'é', '中', '\u0e01', '\u0e33', '\u093f', '\r', '\n', '\u0000', '\u0301', '\u0308', '\ufe0f', '\u200d', '\u200c',
      '👍', '🏽', '🏿', '👨', '👩', '❤', '🇫', '🇷', '\u{e0067}', '🏴', '\u1100', '\u1161', '\u11a8', '\uac00', '\uac01',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 24 }), (list) => {
        const text = list.join('');
        expect(viaFallback(text)).toEqual(viaIntl(text));
      }),
      { numRuns: 1000 },
    );
  });
});
