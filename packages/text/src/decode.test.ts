import fc from 'fast-check';
import { decodeUtf8 } from './decode';
import { TextInputError } from './errors';

const decode = (...bytes: number[]): string => decodeUtf8(new Uint8Array(bytes));
const F = '\ufffd';

describe('decodeUtf8', () => {
  it('decodes valid 1 to 4 byte sequences', () => {
    expect(decode(0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80)).toBe('aé€😀');
    expect(decode()).toBe('');
    expect(decode(0xf4, 0x8f, 0xbf, 0xbf)).toBe('\u{10ffff}');
  });

  it('rejects overlong encodings', () => {
    expect(decode(0xc0, 0xaf)).toBe(F + F);
    expect(decode(0xc1, 0xbf)).toBe(F + F);
    expect(decode(0xe0, 0x80, 0xaf)).toBe(F + F + F);
    expect(decode(0xf0, 0x80, 0x80, 0xaf)).toBe(F + F + F + F);
  });

  it('rejects UTF-8-encoded surrogates and code points past U+10FFFF', () => {
    expect(decode(0xed, 0xa0, 0x80)).toBe(F + F + F);
    expect(decode(0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80)).toBe(F.repeat(6));
    expect(decode(0xf4, 0x90, 0x80, 0x80)).toBe(F.repeat(4));
    expect(decode(0xf5, 0x80)).toBe(F + F);
    expect(decode(0xff, 0xfe)).toBe(F + F);
  });

  it('replaces each maximal subpart with a single U+FFFD', () => {
    expect(decode(0xf0, 0x9f, 0x98, 0x41)).toBe(F + 'A');
    expect(decode(0xe2, 0x82)).toBe(F);
    expect(decode(0xe2, 0x82, 0xe2, 0x82, 0xac)).toBe(F + '€');
    expect(decode(0x80, 0x80, 0x41)).toBe(F + F + 'A');
  });

  it('keeps a byte order mark, like Buffer#toString', () => {
    expect(decode(0xef, 0xbb, 0xbf, 0x61)).toBe('\ufeffa');
  });

  it('decodes each call on its own: an unfinished sequence does not carry over', () => {
    expect(decode(0xe2, 0x82)).toBe(F);
    expect(decode(0xac, 0x61)).toBe(F + 'a');
  });

  it('decodes only the bytes a view covers', () => {
    const whole = new Uint8Array([0x78, 0xc3, 0xa9, 0x61, 0x62, 0x79]);
    expect(decodeUtf8(whole.subarray(1, 5))).toBe('éab');
  });

  it('decodes long input', () => {
    const text = 'ab€😀'.repeat(5000);
    expect(decodeUtf8(Buffer.from(text, 'utf8'))).toBe(text);
  });

  it('throws a TextInputError for something that is not a Uint8Array', () => {
    expect(() => decodeUtf8('abc' as unknown as Uint8Array)).toThrow(TextInputError);
  });

  it('agrees with Buffer#toString on arbitrary bytes', () => {
    const utf8ish = fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0x9f, 0xa0, 0x8f, 0x90),
    );
    fc.assert(
      fc.property(fc.array(utf8ish, { maxLength: 64 }), (list) => {
        const bytes = new Uint8Array(list);
        return decodeUtf8(bytes) === Buffer.from(bytes).toString('utf8');
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips any well-formed string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => decodeUtf8(Buffer.from(s, 'utf8')) === s),
      { numRuns: 1000 },
    );
  });
});
