import { KbError } from './errors';

/**
 * Little-endian IEEE 754 bytes of `vector` (the stored blob), on any platform. Bit-exact: the
 * bit patterns are copied, never converted through a double.
 */
export function float32ToBytes(vector: Float32Array): Uint8Array {
  if (!(vector instanceof Float32Array)) throw new KbError('invalid_argument', 'vector must be a Float32Array');
  const bits = new Uint32Array(vector.buffer, vector.byteOffset, vector.length);
  const bytes = new Uint8Array(vector.length * 4);
  for (let i = 0; i < bits.length; i++) {
    const word = bits[i] as number;
    bytes[i * 4] = word & 0xff;
    bytes[i * 4 + 1] = (word >>> 8) & 0xff;
    bytes[i * 4 + 2] = (word >>> 16) & 0xff;
    bytes[i * 4 + 3] = word >>> 24;
  }
  return bytes;
}

/** The vector stored by `float32ToBytes`. Copies, so the bytes may sit at any offset. */
export function bytesToFloat32(bytes: Uint8Array): Float32Array {
  if (!(bytes instanceof Uint8Array)) throw new KbError('invalid_vector_bytes', 'vector bytes must be a Uint8Array');
  if (bytes.length % 4 !== 0) {
    throw new KbError('invalid_vector_bytes', `vector blob length ${bytes.length} is not a multiple of 4 bytes`);
  }
  const bits = new Uint32Array(bytes.length / 4);
  for (let i = 0; i < bits.length; i++) {
    const at = i * 4;
    bits[i] =
      ((bytes[at] as number) |
        ((bytes[at + 1] as number) << 8) |
        ((bytes[at + 2] as number) << 16) |
        ((bytes[at + 3] as number) << 24)) >>>
      0;
  }
  return new Float32Array(bits.buffer);
}

/** Euclidean norm of `vector` (accumulated in double precision). */
export function l2Norm(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) ** 2;
  return Math.sqrt(sum);
}

/** `vector` scaled to unit length in place and returned; the zero vector stays zero. */
export function l2Normalize(vector: Float32Array): Float32Array {
  const norm = l2Norm(vector);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}

/** Cosine similarity in [-1, 1]; 0 when either vector is zero. Lengths must match. */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length)
    throw new KbError('dimension_mismatch', `vector lengths differ: ${a.length} and ${b.length}`);
  return cosineWithNorm(a, l2Norm(a), b);
}

/** Cosine similarity with the first vector's norm already known (search computes it once). */
export function cosineWithNorm(a: Float32Array, aNorm: number, b: Float32Array): number {
  let dot = 0;
  let bSquares = 0;
  for (let i = 0; i < a.length; i++) {
    const y = b[i] as number;
    dot += (a[i] as number) * y;
    bSquares += y * y;
  }
  const denominator = aNorm * Math.sqrt(bSquares);
  if (denominator === 0) return 0;
  return Math.max(-1, Math.min(1, dot / denominator));
}
