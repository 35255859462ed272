import type { Embedder } from './embedder';
import { KbError } from './errors';
import type { KbSearchResult } from './types';
import { cosineWithNorm, l2Norm } from './vector';

export type Scored<T> = T & { score: number };

export interface SearchableChunk {
  article_id: string;
  article_title: string;
  text: string;
  vector: Float32Array;
}

export const DEFAULT_TOP_K = 5;

function assertK(k: number): void {
  if (!Number.isSafeInteger(k) || k < 0)
    throw new KbError('invalid_argument', `k must be a non-negative integer, got ${String(k)}`);
}

/**
 * The `k` candidates most cosine-similar to `query`, best first, each with its `score`. Equal scores
 * keep the candidates' order. A candidate whose score is not a number (a corrupt vector) is skipped.
 */
export function cosineTopK<T extends { vector: Float32Array }>(
  query: Float32Array,
  candidates: readonly T[],
  k = DEFAULT_TOP_K,
): Array<Scored<T>> {
  if (!(query instanceof Float32Array)) throw new KbError('invalid_argument', 'query must be a Float32Array');
  if (!Array.isArray(candidates)) throw new KbError('invalid_argument', 'candidates must be an array');
  assertK(k);
  const queryNorm = l2Norm(query);
  const scored: Array<{ at: number; score: number }> = [];
  candidates.forEach((candidate, at) => {
    const vector = candidate?.vector;
    if (!(vector instanceof Float32Array))
      throw new KbError('invalid_argument', `candidate ${at} has no Float32Array vector`);
    if (vector.length !== query.length) {
      throw new KbError(
        'dimension_mismatch',
        `candidate ${at} has ${vector.length} dimensions, the query has ${query.length}`,
      );
    }
    const score = cosineWithNorm(query, queryNorm, vector);
    if (!Number.isNaN(score)) scored.push({ at, score });
  });
  scored.sort((a, b) => b.score - a.score || a.at - b.at);
  return scored.slice(0, k).map(({ at, score }) => ({ ...(candidates[at] as T), score }));
}

/** Top-k chunks for a query vector, in the `GET /kb/search` wire shape. */
export function searchChunks(
  query: Float32Array,
  chunks: readonly SearchableChunk[],
  k = DEFAULT_TOP_K,
): KbSearchResult[] {
  return cosineTopK(query, chunks, k).map(({ article_id, article_title, text, score }) => ({
    article_id,
    article_title,
    text,
    score,
  }));
}

/** Embeds `query` with `embedder` and searches `chunks` (which must come from the same embedder). */
export async function searchKb(
  query: string,
  embedder: Embedder,
  chunks: readonly SearchableChunk[],
  k = DEFAULT_TOP_K,
): Promise<KbSearchResult[]> {
  if (typeof query !== 'string') throw new KbError('invalid_argument', 'query must be a string');
  const [vector] = await embedder.embed([query]);
  if (!(vector instanceof Float32Array))
    throw new KbError('invalid_embedding', `embedder ${embedder.id} returned no vector for the query`);
  return searchChunks(vector, chunks, k);
}
