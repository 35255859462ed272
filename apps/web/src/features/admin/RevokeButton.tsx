import { useEffect, useRef, useState } from 'react';

/**
 * "Revoke" that asks first, inline, and keeps keyboard focus where a keyboard user expects it: on the
 * confirming button when asking, back on "Revoke" when the question is dismissed (Escape or "Keep").
 */
export function RevokeButton({ name, busy, onRevoke }: { name: string; busy: boolean; onRevoke(): void }) {
  const [asking, setAsking] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  useEffect(() => {
    if (asking) confirm.current?.focus();
    else if (returnFocus.current) {
      returnFocus.current = false;
      trigger.current?.focus();
    }
  }, [asking]);
  const dismiss = () => {
    returnFocus.current = true;
    setAsking(false);
  };
  if (!asking) {
    return (
      <button
        ref={trigger}
        type="button"
        className="danger small"
        disabled={busy}
        aria-label={`Revoke ${name}`}
        onClick={() => setAsking(true)}
      >
        {busy ? 'Revoking…' : 'Revoke'}
      </button>
    );
  }
  return (
    <span
      className="confirm"
      role="group"
      aria-label={`Revoke ${name}?`}
      onKeyDown={(event) => {
        if (event.key === 'Escape') dismiss();
      }}
    >
      <span>Revoke {name}? Anything using it stops working.</span>
      <button
        ref={confirm}
        type="button"
        className="danger small"
        onClick={() => {
          setAsking(false);
          onRevoke();
        }}
      >
        Yes, revoke
      </button>
      <button type="button" className="small" onClick={dismiss}>
        Keep token
      </button>
    </span>
  );
}
