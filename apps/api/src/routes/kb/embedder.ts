import { createHashingEmbedder, type Embedder } from '@svc/kb';
import type { Config } from '../../config';
import { DomainError } from '../../domain/errors';

export type EmbeddingsConfig = NonNullable<Config['kbEmbeddings']>;

const BATCH = 256;
const TIMEOUT_MS = 30_000;

/** The configured KB embedder: an OpenAI-compatible endpoint when set, else the built-in offline one. */
export function createKbEmbedder(config: Config['kbEmbeddings']): Embedder {
  return config ? createOpenAiEmbedder(config) : createHashingEmbedder();
}

/** `KB_EMBEDDINGS_URL` may name the endpoint itself, the `/v1` base, or the server root. */
export function embeddingsEndpoint(url: string): string {
  const base = url.replace(/\/+$/, '');
  if (base.endsWith('/embeddings')) return base;
  return base.endsWith('/v1') ? `${base}/embeddings` : `${base}/v1/embeddings`;
}

const unavailable = (why: string) => new DomainError('unavailable', `the embeddings service failed: ${why}`);

/**
 * `POST /v1/embeddings` with plain fetch. The vector length is learned from the first answer and every
 * later answer must agree; anything malformed is a 503 `unavailable`, never a crash.
 */
export function createOpenAiEmbedder(config: EmbeddingsConfig): Embedder {
  const endpoint = embeddingsEndpoint(config.url);
  let dimensions = 0;

  async function embedBatch(input: string[]): Promise<Float32Array[]> {
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: config.model, input, encoding_format: 'float' }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw unavailable(err instanceof Error ? err.message : String(err));
    }
    if (!response.ok) throw unavailable(`HTTP ${response.status}`);
    const body = (await response.json().catch(() => null)) as { data?: unknown } | null;
    if (!body || !Array.isArray(body.data) || body.data.length !== input.length)
      throw unavailable('unexpected response shape');
    const rows = [...(body.data as { index?: unknown; embedding?: unknown }[])].sort(
      (a, b) => Number(a.index) - Number(b.index),
    );
    return rows.map((row) => {
      const values = row.embedding;
      if (
        !Array.isArray(values) ||
        values.length === 0 ||
        !values.every((v) => typeof v === 'number' && Number.isFinite(v))
      ) {
        throw unavailable('an embedding is not a list of numbers');
      }
      if (dimensions === 0) dimensions = values.length;
      if (values.length !== dimensions)
        throw unavailable(`vector length changed from ${dimensions} to ${values.length}`);
      return Float32Array.from(values as number[]);
    });
  }

  return {
    id: `openai:${config.model}@${endpoint}`,
    get dimensions() {
      return dimensions;
    },
    async embed(texts: string[]): Promise<Float32Array[]> {
      const out: Float32Array[] = [];
      for (let at = 0; at < texts.length; at += BATCH) out.push(...(await embedBatch(texts.slice(at, at + BATCH))));
      return out;
    },
  };
}
