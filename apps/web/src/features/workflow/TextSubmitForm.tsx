import { useId, useState, type FormEvent } from 'react';
import { ErrorNote } from '../../components/Feedback';

interface Props {
  label: string;
  submitLabel: string;
  hint?: string;
  busy: boolean;
  error: unknown;
  /** resolves when sent; the text is cleared then */
  onSubmit(text: string): Promise<unknown>;
}

/** A labelled multi-line text box with a send button (answers, feedback). */
export function TextSubmitForm({ label, submitLabel, hint, busy, error, onSubmit }: Props) {
  const id = useId();
  const [text, setText] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return;
    onSubmit(text).then(
      () => setText(''),
      () => undefined,
    );
  };
  return (
    <form onSubmit={submit} className="stack">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        value={text}
        onChange={(e) => setText(e.target.value)}
        rows={3}
        required
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      <ErrorNote error={error} />
      <div>
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
