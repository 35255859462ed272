import { chunkArticle } from './chunker';
import { embedChunks } from './embed-chunks';
import { createHashingEmbedder, type Embedder } from './embedder';
import { KbError } from './errors';

const chunks = chunkArticle({ id: 'a', title: 'Guide', content: 'intro\n## One\nfirst\n## Two\nsecond' });

// Embedders that break the interface's promises, as a misconfigured remote endpoint might.
const faulty = (vectors: Float32Array[]): Embedder => ({
  id: 'faulty',
  dimensions: 4,
  embed: () => Promise.resolve(vectors),
});

describe('embedChunks', () => {
  it('attaches the embedding of title plus text to every chunk', async () => {
    const embedder = createHashingEmbedder({ dimensions: 32 });
    const embedded = await embedChunks(chunks, embedder);
    const [expected] = await embedder.embed(['Guide\n\n## Two\nsecond']);
    expect(embedded.map((c) => c.heading)).toEqual([null, 'One', 'Two']);
    expect(embedded[2]?.vector).toEqual(expected);
    expect(embedded[0]).toMatchObject(chunks[0] as object);
  });

  it('does not call the embedder for no chunks', async () => {
    const embedder: Embedder = { id: 'x', dimensions: 1, embed: () => Promise.reject(new Error('called')) };
    await expect(embedChunks([], embedder)).resolves.toEqual([]);
  });

  it('rejects a wrong vector count, length or a non-finite value', async () => {
    await expect(embedChunks(chunks, faulty([new Float32Array(4)]))).rejects.toThrow(KbError);
    await expect(embedChunks(chunks, faulty([0, 1, 2].map(() => new Float32Array(3))))).rejects.toThrow(
      /wrong type or length/,
    );
    const bad = [0, 1, 2].map(() => new Float32Array([1, 0, 0, Number.POSITIVE_INFINITY]));
    await expect(embedChunks(chunks, faulty(bad))).rejects.toMatchObject({ code: 'invalid_embedding' });
  });
});
