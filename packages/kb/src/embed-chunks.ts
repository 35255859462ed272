import { chunkEmbeddingText } from './chunker';
import type { Embedder } from './embedder';
import { KbError } from './errors';
import type { KbChunk } from './types';

export interface EmbeddedChunk extends KbChunk {
  vector: Float32Array;
}

/**
 * Embeds chunks (title plus section text) in one call and checks what the embedder returned: one
 * finite vector of `embedder.dimensions` per chunk. A remote embedder can get this wrong.
 */
export async function embedChunks(chunks: readonly KbChunk[], embedder: Embedder): Promise<EmbeddedChunk[]> {
  if (chunks.length === 0) return [];
  const vectors = await embedder.embed(chunks.map(chunkEmbeddingText));
  if (!Array.isArray(vectors) || vectors.length !== chunks.length) {
    throw new KbError(
      'invalid_embedding',
      `embedder ${embedder.id} returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${chunks.length} texts`,
    );
  }
  return chunks.map((chunk, i) => {
    const vector = vectors[i];
    if (!(vector instanceof Float32Array) || vector.length !== embedder.dimensions) {
      throw new KbError(
        'invalid_embedding',
        `embedder ${embedder.id} returned a vector of the wrong type or length for text ${i}`,
      );
    }
    if (!vector.every(Number.isFinite))
      throw new KbError('invalid_embedding', `embedder ${embedder.id} returned a non-finite value for text ${i}`);
    return { ...chunk, vector };
  });
}
