import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { KbArticle } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorNote } from '../../components/Feedback';
import { Markdown } from '../../components/Markdown';
import { withoutRepeatedTitle } from './text';
import './kb.css';
import { deleteArticle, updateArticle } from './api';
import { ArticleEditor } from './ArticleEditor';
import { inBackground } from '../../lib/background';

/** One article; administrators edit or delete it in place. */
export function ArticlePanel({
  article,
  canEdit,
  onDeleted,
}: {
  article: KbArticle;
  canEdit: boolean;
  onDeleted(): void;
}) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['kb'] });
  const save = useMutation({
    mutationFn: (body: { title: string; content: string }) => updateArticle(article.id, body),
    onSuccess: () => {
      setEditing(false);
      inBackground(refresh());
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteArticle(article.id),
    onSuccess: () => {
      queryClient.setQueryData<KbArticle[]>(queryKeys.kbArticles, (list) => list?.filter((a) => a.id !== article.id));
      inBackground(refresh());
      onDeleted();
    },
  });
  if (editing) {
    return (
      <article className="card">
        <h2>Edit article</h2>
        <ArticleEditor
          initial={article}
          busy={save.isPending}
          error={save.error}
          submitLabel="Save article"
          onSave={(body) => save.mutate(body)}
          onCancel={() => setEditing(false)}
        />
      </article>
    );
  }
  return (
    <article className="card" aria-labelledby="article-title">
      <div className="section-head">
        <h2 id="article-title">{article.title}</h2>
        {canEdit && (
          <div className="inline-actions">
            <button type="button" onClick={() => setEditing(true)}>
              Edit
            </button>
            <ConfirmButton
              label="Delete"
              question={`Delete “${article.title}”?`}
              confirmLabel="Yes, delete"
              busy={remove.isPending}
              onConfirm={() => remove.mutate()}
            />
          </div>
        )}
      </div>
      <ErrorNote error={remove.error} />
      <Markdown className="article-content" source={withoutRepeatedTitle(article.content, article.title)} />
    </article>
  );
}
