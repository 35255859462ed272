import { HeadTailBuffer } from './output-buffer';

/** Splits `bytes` into chunks of `size`, the way a pipe may deliver them. */
function chunks(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

describe('HeadTailBuffer', () => {
  const limit = 64; // head 32 bytes, tail 32 bytes
  const half = limit / 2;

  // A 4-byte character (U+1F600), a 3-byte one (U+20AC) and a 2-byte one (U+00E9) across both cut points.
  describe.each([
    ['4-byte', '\u{1F600}'],
    ['3-byte', '\u20AC'],
    ['2-byte', '\u00E9'],
  ])('with a %s character at the cut points', (_name, char) => {
    const width = Buffer.byteLength(char);
    // Every alignment of the character against the head's end and the tail's start: from the cut falling
    // before its first byte to the cut falling after its last byte.
    it.each(Array.from({ length: 4 }, (_, shift) => shift))('never splits it (alignment %i)', (shift) => {
      const headText = 'h'.repeat(half - shift) + char;
      const tailText = char + 't'.repeat(half - (width - shift));
      const input = `${headText}${'m'.repeat(100)}${tailText}`;
      for (const size of [1, 3, 7, 1000]) {
        const buffer = new HeadTailBuffer(limit);
        for (const chunk of chunks(Buffer.from(input), size)) buffer.push(chunk);
        const text = buffer.text();
        expect(text).not.toContain('\uFFFD');
        const match = /^([^\n]*)\n…\[(\d+) bytes of output omitted\]…\n([^\n]*)$/.exec(text);
        expect(match).not.toBeNull();
        const [, head, omitted, tail] = match!;
        expect(input.startsWith(head!)).toBe(true);
        expect(input.endsWith(tail!)).toBe(true);
        expect(Buffer.byteLength(head!)).toBeLessThanOrEqual(half);
        expect(Buffer.byteLength(tail!)).toBeLessThanOrEqual(half);
        // Whole characters only: what is kept plus what is counted out is the whole input.
        expect(Buffer.byteLength(head!) + Number(omitted) + Buffer.byteLength(tail!)).toBe(Buffer.byteLength(input));
      }
    });
  });

  it('keeps a character split across head and tail when nothing is left out', () => {
    const buffer = new HeadTailBuffer(8);
    const input = `abc\u{1F600}d`; // 8 bytes: the emoji straddles the head's end
    buffer.push(Buffer.from(input));
    expect(buffer.truncated).toBe(false);
    expect(buffer.text()).toBe(input);
  });

  it('gives the kept bytes as they were written: all of them, or head, marker and tail like text()', () => {
    const whole = new HeadTailBuffer(64);
    const bytes = Buffer.from([0x61, 0xff, ...Buffer.from('é€😀\n')]);
    whole.push(bytes);
    expect(whole.bytes()).toEqual(bytes);
    const cut = new HeadTailBuffer(8);
    cut.push(Buffer.from('é€😀\n'.repeat(10)));
    expect(cut.bytes().toString()).toBe(cut.text());
  });

  it('leaves bytes that are not UTF-8 to the decoder', () => {
    const buffer = new HeadTailBuffer(8);
    buffer.push(Buffer.from([0x61, 0xff, 0xfe, 0x62, ...Buffer.from('x'.repeat(20)), 0x80, 0x80, 0x63]));
    expect(buffer.text()).toMatch(/^a\uFFFD\uFFFDb\n…\[\d+ bytes of output omitted\]…\n/);
  });
});
