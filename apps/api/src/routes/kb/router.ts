import type { RequestHandler } from 'express';
import { joinKbText } from '@svc/kb';
import { KbSearchQuerySchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { GuardedHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { parseInput } from '../../domain/validate';
import { notFound } from '../../domain/errors';
import { authorizeGlobal } from '../../policies/access';
import { presentKbArticle } from '../../wire/kb';
import { prepareChunks, searchIndex, writeChunks } from '../../services/kb-index';
import { createKbEmbedder } from './embedder';
import { kbArticlesFromText, kbTextFromRequest, kbTextParser } from './body';

const TX = { timeout: 60_000, maxWait: 10_000 };
const ARTICLE_ORDER = [{ created_at: 'asc' as const }, { id: 'asc' as const }];

/** The installation's knowledge base: anyone signed in reads and searches, administrators write. */
export function kbHandlers(
  deps: AppDeps,
): Handlers<
  | 'getKbText'
  | 'replaceKb'
  | 'searchKb'
  | 'listKbArticles'
  | 'createKbArticle'
  | 'getKbArticle'
  | 'updateKbArticle'
  | 'deleteKbArticle'
> {
  const { db } = deps;
  const embedder = createKbEmbedder(deps.config.kbEmbeddings);
  const allowed =
    (action: 'kb.read' | 'kb.write'): RequestHandler =>
    (req, _res, next) => {
      authorizeGlobal(principalOf(req), action);
      next();
    };
  const read = allowed('kb.read');
  const write = allowed('kb.write');

  const getKbText: GuardedHandler<'getKbText'> = {
    before: [read],
    handle: async (_req, res) => {
      const articles = await db.kbArticle.findMany({ orderBy: ARTICLE_ORDER });
      res.type('text/plain; charset=utf-8').send(joinKbText(articles));
    },
  };

  const replaceKb: GuardedHandler<'replaceKb'> = {
    before: [write, kbTextParser],
    handle: async (req, res) => {
      const articles = kbArticlesFromText(kbTextFromRequest(req));
      const chunks = await prepareChunks(articles, embedder);
      const base = Date.now();
      const saved = await db.$transaction(async (tx) => {
        await tx.kbArticle.deleteMany({});
        const created = [];
        for (const [i, article] of articles.entries()) {
          // Distinct creation times keep the text's article order when it is read back.
          const row = await tx.kbArticle.create({
            data: { title: article.title, content: article.content, created_at: new Date(base + i) },
          });
          await writeChunks(tx, row.id, chunks[i]!);
          created.push(row);
        }
        return created;
      }, TX);
      res.json(saved.map(presentKbArticle));
    },
  };

  const searchKb: GuardedHandler<'searchKb'> = {
    before: [read],
    handle: async (req, res) => {
      const { q, k } = parseInput(KbSearchQuerySchema, { q: req.query.q, k: req.query.k }, 'query');
      res.json(await searchIndex(db, embedder, q, k));
    },
  };

  const listKbArticles: GuardedHandler<'listKbArticles'> = {
    before: [read],
    handle: async (_req, res) => {
      res.json((await db.kbArticle.findMany({ orderBy: ARTICLE_ORDER })).map(presentKbArticle));
    },
  };

  const createKbArticle: GuardedHandler<'createKbArticle'> = {
    before: [write],
    handle: async (req, res, input) => {
      const body = input.body();
      const [chunks] = await prepareChunks([body], embedder);
      const article = await db.$transaction(async (tx) => {
        const row = await tx.kbArticle.create({ data: body });
        await writeChunks(tx, row.id, chunks!);
        return row;
      }, TX);
      res.status(201).location(`/svc/api/kb/articles/${article.id}`).json(presentKbArticle(article));
    },
  };

  const getKbArticle: GuardedHandler<'getKbArticle'> = {
    before: [read],
    handle: async (req, res, input) => {
      const article = await db.kbArticle.findUnique({ where: { id: input.params.id } });
      if (!article) throw notFound('article not found');
      res.json(presentKbArticle(article));
    },
  };

  const updateKbArticle: GuardedHandler<'updateKbArticle'> = {
    before: [write],
    handle: async (req, res, input) => {
      const id = input.params.id;
      const body = input.body();
      if (!(await db.kbArticle.findUnique({ where: { id }, select: { id: true } })))
        throw notFound('article not found');
      const [chunks] = await prepareChunks([body], embedder);
      const article = await db.$transaction(async (tx) => {
        const row = await tx.kbArticle.update({ where: { id }, data: body });
        await writeChunks(tx, id, chunks!);
        return row;
      }, TX);
      res.json(presentKbArticle(article));
    },
  };

  const deleteKbArticle: GuardedHandler<'deleteKbArticle'> = {
    before: [write],
    handle: async (req, res, input) => {
      const { count } = await db.kbArticle.deleteMany({ where: { id: input.params.id } });
      if (count === 0) throw notFound('article not found');
      res.status(204).end();
    },
  };

  return {
    getKbText,
    replaceKb,
    searchKb,
    listKbArticles,
    createKbArticle,
    getKbArticle,
    updateKbArticle,
    deleteKbArticle,
  };
}
