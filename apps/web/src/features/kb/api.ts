import { z } from 'zod';
import { KbArticleSchema, KbSearchResultSchema } from '@svc/protocol';
import { apiJson, apiVoid } from '../../lib/api';

const enc = encodeURIComponent;

export const listArticles = () => apiJson('/kb/articles', z.array(KbArticleSchema));
export const createArticle = (body: { title: string; content: string }) =>
  apiJson('/kb/articles', KbArticleSchema, { method: 'POST', json: body });
export const updateArticle = (id: string, body: { title: string; content: string }) =>
  apiJson(`/kb/articles/${enc(id)}`, KbArticleSchema, { method: 'PUT', json: body });
export const deleteArticle = (id: string) => apiVoid(`/kb/articles/${enc(id)}`, { method: 'DELETE' });
export const searchKb = (q: string) => apiJson('/kb/search', z.array(KbSearchResultSchema), { query: { q, k: 5 } });
