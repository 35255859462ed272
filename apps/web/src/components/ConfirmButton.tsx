import { useState } from 'react';

interface Props {
  label: string;
  /** the question asked before acting, e.g. "Delete project Shop?" */
  question: string;
  confirmLabel?: string;
  busy?: boolean;
  onConfirm(): void;
}

/** A destructive action that asks first, inline (no browser dialog), and can be cancelled. */
export function ConfirmButton({ label, question, confirmLabel = label, busy = false, onConfirm }: Props) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger" onClick={() => setAsking(true)} disabled={busy}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        className="danger"
        disabled={busy}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
