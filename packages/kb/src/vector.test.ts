import fc from 'fast-check';
import { KbError } from './errors';
import { bytesToFloat32, cosineSimilarity, float32ToBytes, l2Normalize } from './vector';

const bitsOf = (v: Float32Array): number[] => Array.from(new Uint32Array(v.buffer, v.byteOffset, v.length));

describe('float32 blobs', () => {
  it('writes little-endian IEEE 754, as Buffer#writeFloatLE does', () => {
    const vector = new Float32Array([1, -2.5, 0.1, -0]);
    const expected = Buffer.alloc(16);
    vector.forEach((x, i) => expected.writeFloatLE(x, i * 4));
    expect(Array.from(float32ToBytes(vector))).toEqual(Array.from(expected));
    expect(Array.from(float32ToBytes(new Float32Array([1])))).toEqual([0x00, 0x00, 0x80, 0x3f]);
  });

  it('reads bytes at an unaligned offset', () => {
    const backing = new Uint8Array(9);
    backing.set(float32ToBytes(new Float32Array([3.5, -1])), 1);
    expect(Array.from(bytesToFloat32(backing.subarray(1)))).toEqual([3.5, -1]);
  });

  it('encodes a view into a larger buffer without its neighbours', () => {
    const whole = new Float32Array([9, 1, 2, 9]);
    expect(Array.from(bytesToFloat32(float32ToBytes(whole.subarray(1, 3))))).toEqual([1, 2]);
  });

  it('rejects a byte length that is not a multiple of 4', () => {
    expect(() => bytesToFloat32(new Uint8Array(7))).toThrow(expect.objectContaining({ code: 'invalid_vector_bytes' }));
    expect(() => bytesToFloat32([1, 2, 3, 4] as unknown as Uint8Array)).toThrow(KbError);
    expect(bytesToFloat32(new Uint8Array(0))).toHaveLength(0);
  });

  it('round-trips any float32 array bit for bit', () => {
    fc.assert(
      fc.property(fc.float32Array({ maxLength: 64 }), (vector) => {
        const bytes = float32ToBytes(vector);
        expect(bytes).toHaveLength(vector.length * 4);
        expect(bitsOf(bytesToFloat32(bytes))).toEqual(bitsOf(vector));
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips any bit pattern, NaN payloads included', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 0xffffffff }), { maxLength: 32 }), (words) => {
        const vector = new Float32Array(new Uint32Array(words).buffer);
        expect(bitsOf(bytesToFloat32(float32ToBytes(vector)))).toEqual(words);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('cosineSimilarity and l2Normalize', () => {
  it('scores parallel 1, orthogonal 0, opposite -1 and zero vectors 0', () => {
    const a = new Float32Array([1, 2, 0]);
    expect(cosineSimilarity(a, new Float32Array([2, 4, 0]))).toBeCloseTo(1, 6);
    expect(cosineSimilarity(a, new Float32Array([-2, 1, 5]))).toBeCloseTo(0, 6);
    expect(cosineSimilarity(a, new Float32Array([-1, -2, 0]))).toBeCloseTo(-1, 6);
    expect(cosineSimilarity(a, new Float32Array(3))).toBe(0);
  });

  it('throws dimension_mismatch for different lengths', () => {
    expect(() => cosineSimilarity(new Float32Array(2), new Float32Array(3))).toThrow(
      expect.objectContaining({ code: 'dimension_mismatch' }),
    );
  });

  it('scales to unit length and leaves the zero vector alone', () => {
    const v = l2Normalize(new Float32Array([3, 4]));
    expect(v[0]).toBeCloseTo(0.6, 6);
    expect(v[1]).toBeCloseTo(0.8, 6);
    expect(Array.from(l2Normalize(new Float32Array(2)))).toEqual([0, 0]);
  });
});
