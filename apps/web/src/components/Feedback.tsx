import type { ReactNode } from 'react';
import { errorMessage } from '../lib/api';

/** An error shown to the user, announced to screen readers. */
export function ErrorNote({ error, children }: { error?: unknown; children?: ReactNode }) {
  if (!error && !children) return null;
  return (
    <p className="error" role="alert">
      {children ?? errorMessage(error)}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="muted empty">{children}</p>;
}
