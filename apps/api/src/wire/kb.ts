import type { KbArticle as ArticleRow } from '@svc/db';
import type { KbArticle } from '@svc/protocol';

export function presentKbArticle(article: ArticleRow): KbArticle {
  return {
    id: article.id,
    title: article.title,
    content: article.content,
    created_at: article.created_at.toISOString(),
    updated_at: article.updated_at.toISOString(),
  };
}
