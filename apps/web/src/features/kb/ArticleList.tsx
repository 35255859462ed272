import type { UseQueryResult } from '@tanstack/react-query';
import type { KbArticle } from '@svc/protocol';
import { shorten } from '../../lib/format';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';

/** Every article by title; the one open is marked current. */
export function ArticleList({
  articles,
  selectedId,
  onOpen,
}: {
  articles: UseQueryResult<KbArticle[]>;
  selectedId: string | undefined;
  onOpen(id: string): void;
}) {
  return (
    <section aria-labelledby="articles-heading">
      <h2 id="articles-heading">Articles</h2>
      {articles.isPending && <Loading what="articles" />}
      <ErrorNote error={articles.error} />
      {articles.isSuccess && articles.data.length === 0 && <Empty>No articles yet.</Empty>}
      <ul className="article-list">
        {articles.data?.map((article) => (
          <li key={article.id}>
            <button
              type="button"
              className="link-button"
              aria-current={article.id === selectedId ? 'true' : undefined}
              onClick={() => onOpen(article.id)}
            >
              {shorten(article.title, 60)}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
