import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { ErrorNote } from '../../components/Feedback';

interface Props {
  label: string;
  submitLabel: string;
  hint?: string;
  busy: boolean;
  error: unknown;
  /** resolves when sent; the text is cleared then */
  onSubmit(text: string): Promise<unknown>;
  /** the text, when the caller keeps it (so it outlives this form); otherwise the form keeps its own */
  value?: string;
  onChange?(text: string): void;
  /** more buttons beside the send button */
  extra?: ReactNode;
}

/** A labelled multi-line text box with a send button (answers, feedback). */
export function TextSubmitForm({ label, submitLabel, hint, busy, error, onSubmit, value, onChange, extra }: Props) {
  const id = useId();
  const [own, setOwn] = useState('');
  const text = value ?? own;
  const setText = (next: string) => (onChange ? onChange(next) : setOwn(next));
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
      <div className="inline-actions">
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
        {extra}
      </div>
    </form>
  );
}
