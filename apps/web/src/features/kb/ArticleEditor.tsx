import { useState, type FormEvent } from 'react';
import { ErrorNote } from '../../components/Feedback';

interface Props {
  initial: { title: string; content: string };
  busy: boolean;
  error: unknown;
  submitLabel: string;
  onSave(article: { title: string; content: string }): void;
  onCancel(): void;
}

/** Title and markdown content of an article; `##` headings split it into searchable sections. */
export function ArticleEditor({ initial, busy, error, submitLabel, onSave, onCancel }: Props) {
  const [title, setTitle] = useState(initial.title);
  const [content, setContent] = useState(initial.content);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (title.trim()) onSave({ title: title.trim(), content });
  };
  return (
    <form onSubmit={submit} className="stack" aria-label="Article">
      <label>
        Title
        <input value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} required />
      </label>
      <label>
        Content (markdown)
        <textarea value={content} onChange={(e) => setContent(e.target.value)} rows={14} className="mono" />
      </label>
      <p className="hint">Each section starting with a “##” heading is indexed for search on its own.</p>
      <ErrorNote error={error} />
      <div className="inline-actions">
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
