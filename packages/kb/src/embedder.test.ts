import { createHashingEmbedder } from './embedder';
import { KbError } from './errors';
import { words } from './features';
import { cosineSimilarity, l2Norm } from './vector';

const embedOne = async (text: string, dimensions?: number): Promise<Float32Array> =>
  (await createHashingEmbedder(dimensions === undefined ? {} : { dimensions }).embed([text]))[0] as Float32Array;

describe('createHashingEmbedder', () => {
  it('defaults to 384 dimensions and names its vector space', () => {
    const embedder = createHashingEmbedder();
    expect(embedder.dimensions).toBe(384);
    expect(embedder.id).toBe('hashing-v1-384');
    expect(createHashingEmbedder({ dimensions: 64 }).id).toBe('hashing-v1-64');
  });

  it('is deterministic across calls and instances, bit for bit', async () => {
    const text = 'Rotate the JWT signing key every 90 days.';
    const a = await embedOne(text);
    const [b, c] = await createHashingEmbedder().embed([text, text]);
    expect(Array.from(new Uint32Array((b as Float32Array).buffer))).toEqual(Array.from(new Uint32Array(a.buffer)));
    expect(c).toEqual(a);
  });

  it('keeps the hashing-v1 vector space stable (a change must bump the id)', async () => {
    const vector = await embedOne('Rotate the JWT signing key');
    const nonZero = Array.from(vector.entries()).filter(([, x]) => x !== 0);
    expect(nonZero).toHaveLength(24);
    expect(nonZero.slice(0, 6).map(([i, x]) => [i, Number(x.toFixed(6))])).toEqual([
      [8, 0.137074],
      [12, -0.137074],
      [29, 0.137074],
      [63, -0.137074],
      [69, -0.137074],
      [73, -0.456912],
    ]);
  });

  it('returns unit-length vectors of the configured size', async () => {
    const [short, long] = await createHashingEmbedder({ dimensions: 128 }).embed([
      'key',
      'A much longer text about deploying services. '.repeat(50),
    ]);
    for (const vector of [short, long] as Float32Array[]) {
      expect(vector).toHaveLength(128);
      expect(l2Norm(vector)).toBeCloseTo(1, 5);
    }
  });

  it('gives the zero vector for text without words', async () => {
    for (const text of ['', '   ', '!?…—']) expect(l2Norm(await embedOne(text))).toBe(0);
  });

  it('ignores case and compatibility forms', async () => {
    expect(await embedOne('JWT Signing KEY')).toEqual(await embedOne('jwt signing key'));
    expect(await embedOne('ＡＢＣ ﬁle')).toEqual(await embedOne('abc file'));
  });

  it('tokenizes letters and numbers of any script, composing combining marks', async () => {
    expect(words('Привет, мир! 東京タワー café-42 naïve e\u0301t\u00e9 x_y')).toEqual([
      'привет',
      'мир',
      '東京',
      '京タ',
      'タワ',
      'ワー',
      'café',
      '42',
      'naïve',
      '\u00e9t\u00e9',
      'x',
      'y',
    ]);
    const russian = await embedOne('Привет мир');
    expect(cosineSimilarity(russian, await embedOne('мир'))).toBeGreaterThan(0.3);
    const tower = await embedOne('東京タワーの高さ');
    expect(cosineSimilarity(tower, await embedOne('東京タワー'))).toBeGreaterThan(0.3);
    expect(cosineSimilarity(tower, await embedOne('大阪城の歴史'))).toBeLessThan(0.1);
  });

  it('scores shared words and word forms above unrelated text', async () => {
    const query = await embedOne('rotating keys');
    expect(cosineSimilarity(query, await embedOne('How to rotate a key'))).toBeGreaterThan(
      cosineSimilarity(query, await embedOne('Boil the pasta water')),
    );
  });

  it('rejects bad dimensions and non-string input with a KbError', async () => {
    for (const dimensions of [0, -1, 1.5, 70000, Number.NaN])
      expect(() => createHashingEmbedder({ dimensions })).toThrow(KbError);
    await expect(createHashingEmbedder().embed([42 as unknown as string])).rejects.toThrow(KbError);
    await expect(createHashingEmbedder().embed('text' as unknown as string[])).rejects.toThrow(KbError);
  });
});
