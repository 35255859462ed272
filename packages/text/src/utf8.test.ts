import fc from 'fast-check';
import { codePointLength, replaceLoneSurrogates, utf8ByteLength, utf8PrefixEnd } from './utf8';

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

describe('utf8PrefixEnd', () => {
  const bytes = (...values: number[]) => Uint8Array.from(values);

  it('keeps an end that follows a whole character', () => {
    expect(utf8PrefixEnd(bytes())).toBe(0);
    expect(utf8PrefixEnd(Buffer.from('aé€😀'))).toBe(10);
    expect(utf8PrefixEnd(Buffer.from('a€'), 1)).toBe(1);
    expect(utf8PrefixEnd(Buffer.from('ab'), 5)).toBe(2);
  });

  it('moves an end that cuts a character back to where the character starts', () => {
    expect(utf8PrefixEnd(Buffer.from('a€'), 2)).toBe(1);
    expect(utf8PrefixEnd(Buffer.from('a€'), 3)).toBe(1);
    expect(utf8PrefixEnd(Buffer.from('a😀'), 4)).toBe(1);
    expect(utf8PrefixEnd(Buffer.from('é'), 1)).toBe(0);
  });

  it('leaves bytes that are not UTF-8 as they are', () => {
    expect(utf8PrefixEnd(bytes(0x80, 0x80))).toBe(2);
    expect(utf8PrefixEnd(bytes(0x61, 0x80, 0x80, 0x80, 0x80))).toBe(5);
    expect(utf8PrefixEnd(bytes(0xc3, 0xa9, 0xa9))).toBe(3);
    expect(utf8PrefixEnd(bytes(0xff))).toBe(1);
    expect(utf8PrefixEnd(bytes(0xc0))).toBe(1);
  });

  it('ends any UTF-8 text at the last character boundary at or before the end asked for', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(), (text, at) => {
        const encoded = Buffer.from(text);
        const cut = at % (encoded.length + 1);
        let boundary = 0;
        for (const char of text) {
          const next = boundary + Buffer.byteLength(char);
          if (next > cut) break;
          boundary = next;
        }
        return utf8PrefixEnd(encoded, cut) === boundary;
      }),
      { numRuns: 1000 },
    );
  });
});
