import { useEffect, useRef, useState } from 'react';
import type { TokenResponse } from '@svc/protocol';

/** The minted token, shown once: copy it now, it is never shown again. */
export function NewTokenNotice({ token, name, onDone }: { token: TokenResponse; name: string; onDone(): void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  // Focus moves here so a keyboard or screen-reader user lands on the token they just made.
  useEffect(() => heading.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token.token);
      setCopied('yes');
    } catch {
      // No clipboard permission: select the text so Ctrl+C copies it.
      field.current?.select();
      setCopied('failed');
    }
  };
  return (
    <section className="card new-token" aria-labelledby="new-token-heading">
      <h2 id="new-token-heading" ref={heading} tabIndex={-1}>
        Token “{name}” created
      </h2>
      <p>Copy it now and store it as a CI secret (e.g. SVC_TOKEN): it is not shown again.</p>
      <div className="row token-row">
        <label className="grow">
          <span className="visually-hidden">The new token</span>
          <input
            ref={field}
            className="mono token-value"
            readOnly
            value={token.token}
            onFocus={(e) => e.target.select()}
          />
        </label>
        <button type="button" className="primary" onClick={() => void copy()}>
          Copy token
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      <p role="status" className="small muted">
        {copied === 'yes' && 'Copied to the clipboard.'}
        {copied === 'failed' && 'Could not use the clipboard: the token is selected, press Ctrl+C (⌘C) to copy it.'}
      </p>
    </section>
  );
}
