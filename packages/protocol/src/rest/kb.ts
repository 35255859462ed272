import { z } from 'zod';
import { IdSchema, MAX_NAME_CHARS, TimestampSchema } from '../common';

export const KB_SEARCH_DEFAULT_K = 5;
export const KB_SEARCH_MAX_K = 50;
export const KB_ARTICLE_MAX_CHARS = 1_000_000;

export const KbArticleSchema = z.object({
  id: IdSchema,
  title: z.string(),
  content: z.string(),
  created_at: TimestampSchema.optional(),
  updated_at: TimestampSchema.optional(),
});
export type KbArticle = z.infer<typeof KbArticleSchema>;

/** POST /kb/articles; PUT /kb/articles/{id} replaces both fields. */
export const CreateKbArticleRequestSchema = z
  .object({
    title: z.string().trim().min(1).max(MAX_NAME_CHARS),
    content: z.string().max(KB_ARTICLE_MAX_CHARS),
  })
  .strict();
export type CreateKbArticleRequest = z.infer<typeof CreateKbArticleRequestSchema>;

export const UpdateKbArticleRequestSchema = CreateKbArticleRequestSchema;
export type UpdateKbArticleRequest = CreateKbArticleRequest;

/** GET /kb/search?q=&k= */
export const KbSearchQuerySchema = z.object({
  q: z.string().trim().min(1).max(10_000),
  k: z.coerce.number().int().min(1).max(KB_SEARCH_MAX_K).default(KB_SEARCH_DEFAULT_K),
});
export type KbSearchQuery = z.infer<typeof KbSearchQuerySchema>;

export const KbSearchResultSchema = z.object({
  article_id: IdSchema,
  article_title: z.string(),
  /** the section's `##` heading text, null for the text before an article's first heading */
  heading: z.string().nullable().optional(),
  text: z.string(),
  /** cosine similarity of the query and the section, -1..1 (higher is closer) */
  score: z.number(),
});
export type KbSearchResult = z.infer<typeof KbSearchResultSchema>;

/** GET /kb/search: a plain array, best first, at most `k` long. */
export const KbSearchResponseSchema = z.array(KbSearchResultSchema);

/** GET /kb/articles and the answer to PUT /kb: a plain array of every article. */
export const KbArticleListSchema = z.array(KbArticleSchema);

/** `PUT /kb` as JSON (the body may also be the text itself, `text/plain` or `text/markdown`). */
export const KbTextRequestSchema = z.object({ text: z.string() }).strict();
export type KbTextRequest = z.infer<typeof KbTextRequestSchema>;
