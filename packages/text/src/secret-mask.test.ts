import fc from 'fast-check';
import { SECRET_MASK, SecretMasker } from './secret-mask';

const TOKEN = 'ghp_s3cr3t+/Tok€n';
const masker = new SecretMasker([TOKEN]);

/** Feeds the text to a stream in the given pieces and returns what it emitted. */
function streamed(pieces: readonly string[], using = masker): string {
  const stream = using.stream();
  return pieces.map((piece) => stream.push(piece)).join('') + stream.flush();
}

describe('SecretMasker', () => {
  it('masks the value and its common encodings (checked with Node built-ins)', () => {
    for (const value of [TOKEN, 'p😀ss wörd&=']) {
      const utf8 = Buffer.from(value, 'utf8');
      const encodings = [value, utf8.toString('base64'), utf8.toString('base64url'), encodeURIComponent(value)];
      encodings.push(utf8.toString('hex'), utf8.toString('hex').toUpperCase());
      const one = new SecretMasker([value]);
      for (const encoded of encodings) expect(one.mask(`before ${encoded} after`)).toBe(`before ${SECRET_MASK} after`);
    }
  });

  it('masks the base64 of a value that sits at any offset inside a longer encoded text', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', 'user:']) {
      const encoded = Buffer.from(`${prefix}${TOKEN}\n`).toString('base64');
      const masked = masker.mask(encoded);
      expect(masked).toContain(SECRET_MASK);
      // What is left could not give the value back.
      expect(Buffer.from(masked.replace(SECRET_MASK, ''), 'base64').toString()).not.toContain(TOKEN.slice(0, 6));
    }
  });

  it('masks a JSON-escaped multi-line value, and every string inside a JSON value but not its keys', () => {
    const pem = '-----BEGIN KEY-----\nMIIBVwIBADANBg\n-----END KEY-----';
    const pemMasker = new SecretMasker([pem]);
    expect(pemMasker.mask(JSON.stringify({ key: pem }))).toBe(`{"key":"${SECRET_MASK}"}`);
    expect(masker.maskJson({ [TOKEN]: [`x ${TOKEN}`, 3, null, { deep: TOKEN }] })).toEqual({
      [TOKEN]: [`x ${SECRET_MASK}`, 3, null, { deep: SECRET_MASK }],
    });
  });

  it('ignores values under four characters and is empty without values', () => {
    const short = new SecretMasker(['abc', '']);
    expect(short.isEmpty).toBe(true);
    expect(short.mask('abc abc')).toBe('abc abc');
    expect(streamed(['ab', 'c'], short)).toBe('abc');
  });

  it('masks the longest of overlapping values whole', () => {
    const nested = new SecretMasker(['pass', 'password123']);
    expect(nested.mask('password123 pass')).toBe(`${SECRET_MASK} ${SECRET_MASK}`);
  });

  it('masks a value split across chunks, one character at a time', () => {
    const text = `log: ${TOKEN} done`;
    expect(streamed([...text])).toBe(`log: ${SECRET_MASK} done`);
  });

  it('emits text that cannot start a value without waiting for the end of the stream', () => {
    const stream = masker.stream();
    const first = stream.push(`${'x'.repeat(200)}${TOKEN.slice(0, 5)}`);
    expect(first.length).toBeGreaterThan(150);
    expect(first).not.toContain(TOKEN.slice(0, 5));
    const rest = stream.push(`${TOKEN.slice(5)} end`) + stream.flush();
    expect(first + rest).toBe(`${'x'.repeat(200)}${SECRET_MASK} end`);
  });

  it('streams exactly what masking the whole text gives, however it is chunked (property)', () => {
    const values = ['tok3n!', 'ab¢d', '😀😀😀'];
    const several = new SecretMasker(values);
    const alphabet = fc.constantFrom(...'tok3n!ab¢d😀 x\n', ...values);
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }), fc.array(fc.nat(60), { maxLength: 6 }), (parts, cuts) => {
        const text = parts.join('');
        const points = [...new Set(cuts.map((cut) => Math.min(cut, text.length)))].sort((a, b) => a - b);
        const pieces = [0, ...points].map((start, index) => text.slice(start, [...points, text.length][index]));
        expect(streamed(pieces, several)).toBe(several.mask(text));
      }),
    );
  });

  it('never splits a surrogate pair between two emitted pieces', () => {
    const emoji = new SecretMasker(['secret-value']);
    const stream = emoji.stream();
    const pieces = [stream.push(`${'😀'.repeat(20)}`), stream.push('😀 tail'), stream.flush()];
    for (const piece of pieces) expect(piece).not.toMatch(/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/);
    expect(pieces.join('')).toBe(`${'😀'.repeat(21)} tail`);
  });
});
