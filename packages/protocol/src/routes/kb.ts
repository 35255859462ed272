import {
  CreateKbArticleRequestSchema,
  KbArticleListSchema,
  KbArticleSchema,
  KbSearchQuerySchema,
  KbSearchResponseSchema,
  KbTextRequestSchema,
  UpdateKbArticleRequestSchema,
} from '../rest/kb';
import { API, defineOperations, json, jsonBody, noContent, pathParams } from './operation';

const read = { tag: 'kb', auth: 'required', action: 'kb.read' } as const;
const write = { tag: 'kb', auth: 'required', action: 'kb.write' } as const;
const article = pathParams({ id: 'article id' });

/** The knowledge base: everyone reads, administrators write. */
export const KB_OPERATIONS = defineOperations({
  getKbText: {
    ...read,
    method: 'GET',
    path: `${API}/kb`,
    summary: 'The whole knowledge base as text (`# <title>` per article)',
    responses: { 200: { description: 'the text', contentType: 'text/plain' } },
  },
  replaceKb: {
    ...write,
    method: 'PUT',
    path: `${API}/kb`,
    summary: 'Replace the whole knowledge base (administrators); split into articles at `# ` headings',
    body: { schema: KbTextRequestSchema, contentTypes: ['application/json', 'text/plain', 'text/markdown'] },
    responses: { 200: json('the articles', KbArticleListSchema) },
    errors: [400, 413, 415],
  },
  listKbArticles: {
    ...read,
    method: 'GET',
    path: `${API}/kb/articles`,
    summary: 'Every article',
    responses: { 200: json('articles', KbArticleListSchema) },
  },
  createKbArticle: {
    ...write,
    method: 'POST',
    path: `${API}/kb/articles`,
    summary: 'Add an article (administrators)',
    body: jsonBody(CreateKbArticleRequestSchema),
    responses: { 201: json('the article', KbArticleSchema) },
    errors: [400],
  },
  getKbArticle: {
    ...read,
    method: 'GET',
    path: `${API}/kb/articles/{id}`,
    params: article,
    summary: 'One article',
    responses: { 200: json('the article', KbArticleSchema) },
  },
  updateKbArticle: {
    ...write,
    method: 'PUT',
    path: `${API}/kb/articles/{id}`,
    params: article,
    summary: 'Save an article (administrators); re-indexes its chunks',
    body: jsonBody(UpdateKbArticleRequestSchema),
    responses: { 200: json('the article', KbArticleSchema) },
    errors: [400],
  },
  deleteKbArticle: {
    ...write,
    method: 'DELETE',
    path: `${API}/kb/articles/{id}`,
    params: article,
    summary: 'Delete an article and its chunks (administrators)',
    responses: { 204: noContent },
  },
  searchKb: {
    ...read,
    method: 'GET',
    path: `${API}/kb/search`,
    query: KbSearchQuerySchema,
    summary: 'Semantic search: the top `k` chunks, each with its article',
    responses: { 200: json('results', KbSearchResponseSchema) },
    errors: [400],
  },
});
