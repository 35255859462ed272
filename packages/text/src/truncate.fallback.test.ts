import fc from 'fast-check';
import { truncateUtf8 } from './truncate';

// An engine without Intl.Segmenter (older browsers): the same truncation through the built-in rules.
describe('truncation without Intl.Segmenter', () => {
  let fallbackTruncate: typeof truncateUtf8;
  const segmenter = Intl.Segmenter;

  beforeAll(() => {
    // Segment once first, so the module under comparison has settled on Intl.Segmenter.
    expect(truncateUtf8('ae\u0301', 2).text).toBe('a');
    Reflect.deleteProperty(Intl, 'Segmenter');
    jest.isolateModules(() => {
      fallbackTruncate = (jest.requireActual('./truncate') as typeof import('./truncate')).truncateUtf8;
    });
  });

  afterAll(() => {
    Object.defineProperty(Intl, 'Segmenter', { value: segmenter, configurable: true, writable: true });
  });

  it('runs without Intl.Segmenter', () => {
    expect(typeof Intl.Segmenter).toBe('undefined');
    expect(fallbackTruncate('a👍🏽👨‍👩‍👧🇫🇷e\u0301', 13).text).toBe('a👍🏽');
  });

  it('agrees with the Intl.Segmenter path on text it covers', () => {
    const piece = fc.constantFrom(
      'a',
      ' ',
      '\r\n',
      'é',
      '中',
      '👍🏽',
      '👨‍👩‍👧',
      '🇫🇷',
      '🇩',
      'e\u0301',
      '\u0301',
      '\u200d',
      '\uac00\u11a8',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.nat({ max: 120 }), fc.boolean(), (pieces, budget, marker) => {
        const text = pieces.join('');
        expect(fallbackTruncate(text, budget, { marker })).toEqual(truncateUtf8(text, budget, { marker }));
      }),
      { numRuns: 1000 },
    );
  });
});
