import { useEffect, useId, useRef, type ReactNode } from 'react';
import './ShownOnce.css';
import { inBackground } from '../lib/background';
import { useCopy } from '../lib/use-copy';

/**
 * A secret the server shows this once (a new token, an invitation link): a focused heading, what to do
 * with it, the value in a read-only field, Copy and Done.
 */
export function ShownOnce({
  title,
  headingLevel,
  what,
  fieldLabel,
  value,
  className,
  children,
  onDone,
}: {
  title: ReactNode;
  headingLevel: 'h2' | 'h4';
  /** what the value is, in the button and the clipboard message: "token", "link" */
  what: string;
  fieldLabel: string;
  value: string;
  className: string;
  children: ReactNode;
  onDone(): void;
}) {
  const Heading = headingLevel;
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const { copied, copy } = useCopy(value, () => field.current?.select());
  // Focus moves here so a keyboard or screen-reader user lands on what they just made.
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className={`card shown-once ${className}`} aria-labelledby={headingId}>
      <Heading id={headingId} ref={heading} tabIndex={-1}>
        {title}
      </Heading>
      {children}
      <div className="row shown-once-row">
        <label className="grow">
          <span className="visually-hidden">{fieldLabel}</span>
          <input
            ref={field}
            className="mono shown-once-value"
            readOnly
            value={value}
            onFocus={(e) => e.target.select()}
          />
        </label>
        <button type="button" className="primary" onClick={() => inBackground(copy())}>
          Copy {what}
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      <p role="status" className="small muted">
        {copied === 'yes' && 'Copied to the clipboard.'}
        {copied === 'failed' && `Could not use the clipboard: the ${what} is selected, press Ctrl+C (⌘C) to copy it.`}
      </p>
    </section>
  );
}
