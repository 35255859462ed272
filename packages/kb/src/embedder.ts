import { KbError } from './errors';
import { extractFeatures } from './features';
import { fnv1a32, mix32 } from './hash';
import { l2Normalize } from './vector';

/** Turns texts into vectors; `id` names the vector space so stored vectors can be checked against it. */
export interface Embedder {
  readonly id: string;
  readonly dimensions: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface HashingEmbedderOptions {
  /** Vector length, 1..65536; default 384. */
  dimensions?: number;
}

export const DEFAULT_HASHING_DIMENSIONS = 384;
const MAX_DIMENSIONS = 65536;

/** One text to a vector: hashed features with a sign hash, 1 + ln(tf) damping, L2-normalised. */
export function hashingVector(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const [key, { weight, count }] of extractFeatures(text)) {
    const hash = fnv1a32(key);
    const sign = (mix32(hash) & 1) === 0 ? 1 : -1;
    const bucket = hash % dimensions;
    vector[bucket] = (vector[bucket] as number) + sign * weight * (1 + Math.log(count));
  }
  return l2Normalize(vector);
}

/**
 * The built-in offline embedder: deterministic, no model weights. Texts with no words (empty,
 * punctuation only) get the zero vector, which scores 0 against everything.
 */
export function createHashingEmbedder(options: HashingEmbedderOptions = {}): Embedder {
  const dimensions = options.dimensions ?? DEFAULT_HASHING_DIMENSIONS;
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    throw new KbError(
      'invalid_argument',
      `dimensions must be an integer from 1 to ${MAX_DIMENSIONS}, got ${String(dimensions)}`,
    );
  }
  return {
    id: `hashing-v1-${dimensions}`,
    dimensions,
    embed(texts: string[]): Promise<Float32Array[]> {
      if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
        return Promise.reject(new KbError('invalid_argument', 'embed expects an array of strings'));
      }
      return Promise.resolve(texts.map((text) => hashingVector(text, dimensions)));
    },
  };
}
