import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { queryKeys } from '../lib/query-keys';
import { useDocumentTitle } from '../lib/document-title';
import { Empty } from '../components/Feedback';
import { useCurrentUser } from '../features/auth/user-context';
import { listArticles } from '../features/kb/api';
import { ArticleList } from '../features/kb/ArticleList';
import { ArticlePanel } from '../features/kb/ArticlePanel';
import { KbSearch } from '../features/kb/KbSearch';
import { NewArticle, useCreateArticle } from '../features/kb/NewArticle';

/** The knowledge base: search, the article list, one article (`?article=`); administrators edit. */
export function KbRoute() {
  const user = useCurrentUser();
  const [params, setParams] = useSearchParams();
  const [creating, setCreating] = useState(false);
  const articles = useQuery({ queryKey: queryKeys.kbArticles, queryFn: listArticles });
  const open = (id: string | null) => setParams(id ? { article: id } : {});
  const create = useCreateArticle((id) => {
    setCreating(false);
    open(id);
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
      {creating && <NewArticle create={create} onCancel={() => setCreating(false)} />}
      <div className="split">
        <ArticleList articles={articles} selectedId={selected?.id} onOpen={open} />
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
