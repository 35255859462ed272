import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHashingEmbedder, float32ToBytes } from '@svc/kb';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { body } from '../../support/fixtures';

const DIMENSIONS = 32;

/**
 * A small OpenAI-compatible `/v1/embeddings` server: it embeds with the hashing embedder at 32
 * dimensions, so results are meaningful, and records what it was asked.
 */
async function startEmbeddingsServer() {
  const embedder = createHashingEmbedder({ dimensions: DIMENSIONS });
  const requests: { path: string; authorization?: string; model: string; input: string[] }[] = [];
  let failing = false;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', async () => {
      const parsed = JSON.parse(raw) as { model: string; input: string[] };
      requests.push({ path: req.url ?? '', authorization: req.headers.authorization, ...parsed });
      if (failing) {
        res.writeHead(500).end('{"error":"down"}');
        return;
      }
      const vectors = await embedder.embed(parsed.input);
      // answered out of order on purpose: clients must sort by index
      const data = vectors.map((v, index) => ({ object: 'embedding', index, embedding: Array.from(v) })).reverse();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ object: 'list', data, model: parsed.model, usage: { prompt_tokens: 1, total_tokens: 1 } }),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    setFailing: (value: boolean) => (failing = value),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(TEST_PROVIDERS)('knowledge base with an OpenAI-compatible embeddings endpoint on %s', (provider) => {
  let embeddings: Awaited<ReturnType<typeof startEmbeddingsServer>>;
  let server: TestServer;
  let root: string;
  const embedderId = () => `openai:emb-small@${embeddings.url}/embeddings`;
  beforeAll(async () => {
    embeddings = await startEmbeddingsServer();
    server = await startTestServer(provider, {
      KB_EMBEDDINGS_URL: embeddings.url,
      KB_EMBEDDINGS_MODEL: 'emb-small',
      KB_EMBEDDINGS_API_KEY: 'sk-test',
    });
    root = await server.login('root');
  });
  afterAll(async () => {
    await server?.close();
    await embeddings?.close();
  });

  it('embeds chunks through the endpoint and searches with it', async () => {
    const res = await server.request('/svc/api/kb/articles', {
      method: 'POST',
      as: root,
      json: {
        title: 'Ports',
        content: '## Web\nThe web app listens on 3000.\n\n## Database\nPostgreSQL listens on 5432.',
      },
    });
    expect(res.status).toBe(201);
    expect(embeddings.requests.at(-1)).toMatchObject({
      path: '/v1/embeddings',
      authorization: 'Bearer sk-test',
      model: 'emb-small',
    });
    expect(embeddings.requests.at(-1)!.input).toHaveLength(2);
    const chunks = await server.deps.db.kbChunk.findMany();
    expect(chunks.map((c) => [c.embedder, c.embedding.length])).toEqual([
      [embedderId(), DIMENSIONS * 4],
      [embedderId(), DIMENSIONS * 4],
    ]);

    const results = await body(await server.request('/svc/api/kb/search?q=postgresql%20database&k=1', { as: root }));
    expect(results).toEqual([
      expect.objectContaining({ article_title: 'Ports', text: '## Database\nPostgreSQL listens on 5432.' }),
    ]);
  });

  it('re-embeds chunks left by the built-in embedder when the configuration changed', async () => {
    const builtIn = createHashingEmbedder();
    const [vector] = await builtIn.embed(['old']);
    await server.deps.db.kbChunk.updateMany({
      data: { embedder: builtIn.id, embedding: new Uint8Array(float32ToBytes(vector!)) },
    });
    const res = await server.request('/svc/api/kb/search?q=web%20app&k=1', { as: root });
    expect(res.status).toBe(200);
    expect((await body(res))[0].text).toContain('3000');
    const chunks = await server.deps.db.kbChunk.findMany();
    expect(chunks.every((c) => c.embedder === embedderId() && c.embedding.length === DIMENSIONS * 4)).toBe(true);
  });

  it('answers 503 when the endpoint fails, and stores nothing', async () => {
    const before = await server.deps.db.kbArticle.count();
    embeddings.setFailing(true);
    try {
      const res = await server.request('/svc/api/kb/articles', {
        method: 'POST',
        as: root,
        json: { title: 'Down', content: 'x' },
      });
      expect(res.status).toBe(503);
      expect((await body(res)).error).toMatchObject({
        code: 'unavailable',
        message: 'the embeddings service failed: HTTP 500',
      });
      expect((await server.request('/svc/api/kb/search?q=x', { as: root })).status).toBe(503);
    } finally {
      embeddings.setFailing(false);
    }
    await expect(server.deps.db.kbArticle.count()).resolves.toBe(before);
  });
});
