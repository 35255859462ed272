import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { queryKeys } from '../lib/query-keys';
import { shorten } from '../lib/format';
import { useDocumentTitle } from '../lib/document-title';
import { Empty, ErrorNote, Loading } from '../components/Feedback';
import { useCurrentUser } from '../features/auth/user-context';
import { createArticle, listArticles } from '../features/kb/api';
import { ArticleEditor } from '../features/kb/ArticleEditor';
import { ArticlePanel } from '../features/kb/ArticlePanel';
import { KbSearch } from '../features/kb/KbSearch';
import { inBackground } from '../lib/background';

/** The knowledge base: search, the article list, one article (`?article=`); administrators edit. */
export function KbRoute() {
  const user = useCurrentUser();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const [creating, setCreating] = useState(false);
  const articles = useQuery({ queryKey: queryKeys.kbArticles, queryFn: listArticles });
  const open = (id: string | null) => setParams(id ? { article: id } : {});
  const create = useMutation({
    mutationFn: createArticle,
    onSuccess: (article) => {
      setCreating(false);
      inBackground(queryClient.invalidateQueries({ queryKey: ['kb'] }));
      open(article.id);
    },
  });
  const selected = articles.data?.find((a) => a.id === params.get('article'));
  useDocumentTitle(selected ? `${selected.title} · Knowledge base` : 'Knowledge base');
  return (
    <div className="kb-page">
      <header className="page-head">
        <h1>Knowledge base</h1>
        {user.is_admin && !creating && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New article
          </button>
        )}
      </header>
      <KbSearch onOpen={open} />
      {creating && (
        <section className="card" aria-labelledby="new-article-heading">
          <h2 id="new-article-heading">New article</h2>
          <ArticleEditor
            initial={{ title: '', content: '' }}
            busy={create.isPending}
            error={create.error}
            submitLabel="Create article"
            onSave={(body) => create.mutate(body)}
            onCancel={() => setCreating(false)}
          />
        </section>
      )}
      <div className="split">
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
                  aria-current={article.id === selected?.id ? 'true' : undefined}
                  onClick={() => open(article.id)}
                >
                  {shorten(article.title, 60)}
                </button>
              </li>
            ))}
          </ul>
        </section>
        <div>
          {selected ? (
            <ArticlePanel key={selected.id} article={selected} canEdit={user.is_admin} onDeleted={() => open(null)} />
          ) : (
            <Empty>Choose an article to read it.</Empty>
          )}
        </div>
      </div>
    </div>
  );
}
