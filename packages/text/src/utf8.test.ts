import fc from 'fast-check';
import { codePointLength, replaceLoneSurrogates, utf8ByteLength } from './utf8';

const anyUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)) });

describe('utf8ByteLength', () => {
  it('counts 1, 2, 3 and 4 byte characters', () => {
    expect(utf8ByteLength('')).toBe(0);
    expect(utf8ByteLength('a')).toBe(1);
    expect(utf8ByteLength('é')).toBe(2);
    expect(utf8ByteLength('€')).toBe(3);
    expect(utf8ByteLength('😀')).toBe(4);
    expect(utf8ByteLength('👍🏽')).toBe(8);
  });

  it('counts a lone surrogate as the 3 bytes of U+FFFD', () => {
    expect(utf8ByteLength('\ud83d')).toBe(3);
    expect(utf8ByteLength('a\ude00b')).toBe(5);
    expect(utf8ByteLength('\ude00\ud83d')).toBe(6);
  });

  it('agrees with Buffer.byteLength on any UTF-16 string', () => {
    fc.assert(
      fc.property(
        fc.oneof(anyUnits, fc.string({ unit: 'binary' })),
        (s) => utf8ByteLength(s) === Buffer.byteLength(s, 'utf8'),
      ),
      { numRuns: 1000 },
    );
  });
});

describe('codePointLength', () => {
  it('counts a surrogate pair once and a lone surrogate once', () => {
    expect(codePointLength('a😀b')).toBe(3);
    expect(codePointLength('\ud83d')).toBe(1);
  });

  it('agrees with spreading the string into code points', () => {
    fc.assert(
      fc.property(anyUnits, (s) => codePointLength(s) === [...s].length),
      { numRuns: 1000 },
    );
  });
});

describe('replaceLoneSurrogates', () => {
  it('replaces only unpaired surrogates', () => {
    expect(replaceLoneSurrogates('a\ud83d😀\ude00')).toBe('a\ufffd😀\ufffd');
    const clean = 'plain 😀 text';
    expect(replaceLoneSurrogates(clean)).toBe(clean);
  });

  it('gives what a UTF-8 round trip through Buffer gives', () => {
    fc.assert(
      fc.property(anyUnits, (s) => replaceLoneSurrogates(s) === Buffer.from(s, 'utf8').toString('utf8')),
      { numRuns: 1000 },
    );
  });
});
