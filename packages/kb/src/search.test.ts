import fc from 'fast-check';
import { createHashingEmbedder } from './embedder';
import { cosineTopK, searchChunks, searchKb } from './search';
import { cosineSimilarity } from './vector';

const v = (...xs: number[]) => new Float32Array(xs);

describe('cosineTopK', () => {
  it('returns the best k, best first, with scores', () => {
    const candidates = [
      { id: 'far', vector: v(0, 1) },
      { id: 'exact', vector: v(1, 0) },
      { id: 'near', vector: v(1, 0.2) },
      { id: 'opposite', vector: v(-1, 0) },
    ];
    const top = cosineTopK(v(2, 0), candidates, 2);
    expect(top.map((c) => c.id)).toEqual(['exact', 'near']);
    expect(top[0]?.score).toBeCloseTo(1, 6);
    expect(cosineTopK(v(2, 0), candidates, 10).map((c) => c.id)).toEqual(['exact', 'near', 'far', 'opposite']);
  });

  it('defaults to 5 and gives nothing for k = 0', () => {
    const many = Array.from({ length: 8 }, (_, i) => ({ vector: v(1, i) }));
    expect(cosineTopK(v(1, 0), many)).toHaveLength(5);
    expect(cosineTopK(v(1, 0), many, 0)).toEqual([]);
  });

  it('breaks ties by candidate order', () => {
    const candidates = ['a', 'b', 'c', 'd'].map((id) => ({ id, vector: v(1, 1) }));
    expect(cosineTopK(v(1, 1), candidates, 3).map((c) => c.id)).toEqual(['a', 'b', 'c']);
  });

  it('skips a candidate whose vector holds NaN', () => {
    expect(
      cosineTopK(v(1, 0), [
        { id: 'bad', vector: v(Number.NaN, 0) },
        { id: 'ok', vector: v(1, 0) },
      ]).map((c) => c.id),
    ).toEqual(['ok']);
  });

  it('throws for mismatched dimensions and a bad k', () => {
    expect(() => cosineTopK(v(1, 0), [{ vector: v(1, 0, 0) }])).toThrow(
      expect.objectContaining({ code: 'dimension_mismatch' }),
    );
    expect(() => cosineTopK(v(1, 0), [], -1)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => cosineTopK(v(1, 0), [], 1.5)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('equals a full sort by score then index, for any candidates and k', () => {
    const component = fc.constantFrom(-1, -0.5, 0, 0.5, 1, 2); // few values, so ties happen
    const vector = fc.array(component, { minLength: 3, maxLength: 3 }).map((xs) => new Float32Array(xs));
    fc.assert(
      fc.property(vector, fc.array(vector, { maxLength: 20 }), fc.nat({ max: 25 }), (query, vectors, k) => {
        const candidates = vectors.map((vec, id) => ({ id, vector: vec }));
        const top = cosineTopK(query, candidates, k);
        const expected = candidates
          .map((c) => ({ id: c.id, score: cosineSimilarity(query, c.vector) }))
          .sort((a, b) => b.score - a.score || a.id - b.id)
          .slice(0, k);
        expect(top.map((c) => c.id)).toEqual(expected.map((c) => c.id));
        expect(top).toHaveLength(Math.min(k, candidates.length));
        top.forEach((c, i) => {
          expect(c.score).toBeGreaterThanOrEqual(-1);
          expect(c.score).toBeLessThanOrEqual(1);
          if (i > 0) expect(c.score).toBeLessThanOrEqual((top[i - 1] as { score: number }).score);
        });
      }),
      { numRuns: 1000 },
    );
  });
});

describe('searchChunks and searchKb', () => {
  const chunk = (article_id: string, text: string, vector: Float32Array) => ({
    article_id,
    article_title: `T ${article_id}`,
    text,
    vector,
    heading: null,
  });

  it('produces the KbSearchResult wire shape only', () => {
    const results = searchChunks(v(1, 0), [chunk('a', 'alpha', v(1, 0)), chunk('b', 'beta', v(0, 1))], 1);
    expect(results).toEqual([{ article_id: 'a', article_title: 'T a', text: 'alpha', score: expect.closeTo(1, 6) }]);
  });

  it('embeds the query with the given embedder', async () => {
    const embedder = createHashingEmbedder({ dimensions: 64 });
    const [pasta, cars] = await embedder.embed(['boiling pasta water', 'car engine oil']);
    const results = await searchKb('how long to boil pasta', embedder, [
      chunk('cars', 'engine', cars as Float32Array),
      chunk('food', 'pasta', pasta as Float32Array),
    ]);
    expect(results.map((r) => r.article_id)).toEqual(['food', 'cars']);
  });
});
