import { KbArticleListSchema, KbArticleSchema } from '@svc/protocol';
import { apiClient, apiJson, apiVoid } from '../../lib/api';

const enc = encodeURIComponent;

export const listArticles = () => apiJson('/kb/articles', KbArticleListSchema);
export const createArticle = (body: { title: string; content: string }) =>
  apiJson('/kb/articles', KbArticleSchema, { method: 'POST', json: body });
export const updateArticle = (id: string, body: { title: string; content: string }) =>
  apiJson(`/kb/articles/${enc(id)}`, KbArticleSchema, { method: 'PUT', json: body });
export const deleteArticle = (id: string) => apiVoid(`/kb/articles/${enc(id)}`, { method: 'DELETE' });
export const searchKb = (q: string) => apiClient.searchKb(q, 5);
