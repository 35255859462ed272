import fc from 'fast-check';
import { graphemeBoundaryAtOrBefore, graphemes } from './graphemes';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const viaIntl = (text: string): string[] => [...segmenter.segment(text)].map((s) => s.segment);
const viaWindows = (text: string): string[] => [...graphemes(text)].map((g) => g.segment);

const NAMED: Record<string, string> = {
  'skin tone modifier': 'a👍🏽b',
  'ZWJ family': '👨‍👩‍👧‍👦!',
  'ZWJ with skin tones': '👩🏽‍🤝‍👨🏿.',
  flags: '🇫🇷🇩🇪🇯',
  'tag sequence flag': '🏴󠁧󠁢󠁳󠁣󠁴󠁿x',
  'combining marks': 'e\u0301\u0323o\u0308',
  'CR LF': 'a\r\nb\n\rc',
  'Hangul jamo': '\u1100\u1161\u11a8\uac00\u11a8',
  keycap: '1\ufe0f\u20e3#',
  controls: 'a\u0000\u0301b\u200bc',
  'lone surrogates': 'a\ud83d\u0301\ude00b',
};

describe('grapheme segmentation', () => {
  it.each(Object.entries(NAMED))('keeps clusters whole across every window edge: %s', (_name, text) => {
    // Windows are 256 UTF-16 units: slide the text over the first window's end.
    for (let lead = 256 - text.length - 1; lead <= 256 + 1; lead++) {
      const whole = `${'中'.repeat(lead)}${text}${'中'.repeat(300)}`;
      expect(viaWindows(whole)).toEqual(viaIntl(whole));
    }
  });

  it('keeps an emoji with its skin tone and a ZWJ sequence whole', () => {
    expect(viaWindows('a👍🏽👨‍👩‍👧')).toEqual(['a', '👍🏽', '👨‍👩‍👧']);
  });

  it('reports each cluster start index', () => {
    expect([...graphemes('é😀x')].map((g) => g.index)).toEqual([0, 1, 3]);
  });

  it('restarts at a given boundary', () => {
    expect([...graphemes('ab👍🏽c', 2)]).toEqual([
      { segment: '👍🏽', index: 2 },
      { segment: 'c', index: 6 },
    ]);
  });
});

describe('windowed segmentation of long text', () => {
  const pieces = fc.constantFrom(
    'abc ',
    '\n',
    '\r\n',
    '中文字',
    'é',
    'e\u0301',
    '👍🏽',
    '👨‍👩‍👧',
    '🇫🇷',
    '🇩',
    '\u0301',
    '\u200d',
    'x'.repeat(40),
    '東京'.repeat(30),
  );
  const longText = fc.array(pieces, { minLength: 20, maxLength: 200 }).map((list) => list.join(''));
  const boundariesOf = (text: string): number[] => [
    0,
    ...[...segmenter.segment(text)].map((s) => s.index + s.segment.length),
  ];

  it('yields the clusters of the whole text across window edges', () => {
    fc.assert(
      fc.property(longText, (text) => {
        expect(viaWindows(text)).toEqual(viaIntl(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('widens a window for a cluster longer than it', () => {
    const huge = `e${'\u0301'.repeat(1000)}`;
    expect([...graphemes(`a${huge}b`)].map((g) => g.segment)).toEqual(['a', huge, 'b']);
  });

  it('finds the last boundary at or before any position', () => {
    fc.assert(
      fc.property(
        longText.chain((text) => fc.tuple(fc.constant(text), fc.nat({ max: text.length }))),
        ([text, position]) => {
          const expected = Math.max(...boundariesOf(text).filter((b) => b <= position));
          expect(graphemeBoundaryAtOrBefore(text, position)).toBe(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('looks back past long text without ASCII', () => {
    const text = `${'東京'.repeat(500)}👍🏽tail`;
    expect(graphemeBoundaryAtOrBefore(text, 1001)).toBe(1000);
    expect(graphemeBoundaryAtOrBefore(text, 1002)).toBe(1000);
    expect(graphemeBoundaryAtOrBefore(text, 1004)).toBe(1004);
  });
});
