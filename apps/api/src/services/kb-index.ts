import type { Db, Prisma } from '@svc/db';
import {
  bytesToFloat32,
  chunkArticle,
  cosineTopK,
  embedChunks,
  float32ToBytes,
  KbError,
  type Embedder,
  type KbChunk,
} from '@svc/kb';
import type { KbSearchResult } from '@svc/protocol';
import { DomainError } from '../domain/errors';

/** A chunk ready to store, minus the article id (not known yet for a new article). */
export interface PreparedChunk {
  index: number;
  heading: string | null;
  text: string;
  embedding: Uint8Array<ArrayBuffer>;
  embedder: string;
}

type Tx = Prisma.TransactionClient;

/** Embedder failures (bad vectors from a remote service) are the service being unavailable, not our bug. */
async function embedding<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof KbError) throw new DomainError('unavailable', `the embeddings service failed: ${err.message}`);
    throw err;
  }
}

const toBlob = (vector: Float32Array) => new Uint8Array(float32ToBytes(vector));

/** Chunks several articles (one `##` section each) and embeds all their chunks in one go. */
export async function prepareChunks(
  articles: readonly { title: string; content: string }[],
  embedder: Embedder,
): Promise<PreparedChunk[][]> {
  const perArticle = articles.map((a, i) => chunkArticle({ id: String(i), title: a.title, content: a.content }));
  const embedded = await embedding(() => embedChunks(perArticle.flat(), embedder));
  let at = 0;
  return perArticle.map((chunks) =>
    chunks.map((chunk) => {
      const vector = embedded[at++]!.vector;
      return {
        index: chunk.index,
        heading: chunk.heading,
        text: chunk.text,
        embedding: toBlob(vector),
        embedder: embedder.id,
      };
    }),
  );
}

/** Replaces an article's chunks inside the caller's transaction. */
export async function writeChunks(tx: Tx, articleId: string, chunks: readonly PreparedChunk[]): Promise<void> {
  await tx.kbChunk.deleteMany({ where: { article_id: articleId } });
  if (chunks.length)
    await tx.kbChunk.createMany({ data: chunks.map((chunk) => ({ ...chunk, article_id: articleId })) });
}

/**
 * Cosine top-k over every stored chunk (top k whatever their score: the agent's kb_search gets its 5
 * results; the web page hides the ones that share nothing with the query). Chunks written by another embedder (the configuration changed)
 * or with a vector of another length are re-embedded first and saved, so the index heals lazily.
 */
export async function searchIndex(db: Db, embedder: Embedder, query: string, k: number): Promise<KbSearchResult[]> {
  const [queryVector] = await embedding(() => embedder.embed([query]));
  if (!queryVector) throw new DomainError('unavailable', 'the embeddings service returned no vector');
  const rows = await db.kbChunk.findMany({
    include: { article: { select: { title: true } } },
    orderBy: [{ article_id: 'asc' }, { index: 'asc' }],
  });
  const stale = rows.filter((row) => row.embedder !== embedder.id || row.embedding.length !== queryVector.length * 4);
  const fresh = new Map<string, Uint8Array<ArrayBuffer>>();
  if (stale.length) {
    const asChunks: KbChunk[] = stale.map((row) => ({
      article_id: row.article_id,
      article_title: row.article.title,
      heading: row.heading,
      index: row.index,
      text: row.text,
    }));
    const vectors = await embedding(() => embedChunks(asChunks, embedder));
    stale.forEach((row, i) => fresh.set(row.id, toBlob(vectors[i]!.vector)));
    await db.$transaction(
      stale.map((row) =>
        db.kbChunk.updateMany({
          where: { id: row.id, embedder: row.embedder },
          data: { embedding: fresh.get(row.id)!, embedder: embedder.id },
        }),
      ),
    );
  }
  const candidates = rows.map((row) => ({
    article_id: row.article_id,
    article_title: row.article.title,
    heading: row.heading,
    text: row.text,
    vector: bytesToFloat32(fresh.get(row.id) ?? row.embedding),
  }));
  return cosineTopK(queryVector, candidates, k).map(({ article_id, article_title, heading, text, score }) => ({
    article_id,
    article_title,
    heading,
    text,
    score,
  }));
}
