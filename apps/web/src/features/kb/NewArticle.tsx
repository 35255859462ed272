import { useMutation, useQueryClient } from '@tanstack/react-query';
import { inBackground } from '../../lib/background';
import { createArticle } from './api';
import { ArticleEditor } from './ArticleEditor';

/** Creates an article; `onCreated` gets its id once the server stored it. */
export function useCreateArticle(onCreated: (id: string) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createArticle,
    onSuccess: (article) => {
      inBackground(queryClient.invalidateQueries({ queryKey: ['kb'] }));
      onCreated(article.id);
    },
  });
}

/** The editor of a new article. */
export function NewArticle({ create, onCancel }: { create: ReturnType<typeof useCreateArticle>; onCancel(): void }) {
  return (
    <section className="card" aria-labelledby="new-article-heading">
      <h2 id="new-article-heading">New article</h2>
      <ArticleEditor
        initial={{ title: '', content: '' }}
        busy={create.isPending}
        error={create.error}
        submitLabel="Create article"
        onSave={(body) => create.mutate(body)}
        onCancel={onCancel}
      />
    </section>
  );
}
