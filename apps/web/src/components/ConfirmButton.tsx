import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';

interface Props {
  /** the trigger, e.g. "Cancel workflow" */
  label: string;
  /** the trigger's accessible name when `label` alone is ambiguous, e.g. "Revoke token ci" in a list */
  ariaLabel?: string;
  /** the smaller buttons of lists and tables */
  small?: boolean;
  /** the question asked before acting, e.g. "Stop this workflow?" */
  question: string;
  /** says what happens, e.g. "Yes, cancel workflow" */
  confirmLabel: string;
  /** says what stays, e.g. "Keep running" */
  keepLabel?: string;
  busy?: boolean;
  /** the trigger's text while `busy`, e.g. "Cancelling…" */
  busyLabel?: string;
  onConfirm(): void;
  /**
   * Where focus goes when this button disappears after confirming (the workflow is no longer
   * cancellable, the page changed), once it exists. Default: the page's heading; the main region
   * when neither appears.
   */
  focusAfter?: () => HTMLElement | null;
}

type FocusTarget = 'trigger' | 'confirm' | null;

/** The page's heading when it is focusable by script, else null. */
export const pageHeading = (): HTMLElement | null => document.querySelector<HTMLElement>('main h1[tabindex]');

/** Frames to wait for the next page's heading after the focused control went away. */
const SETTLE_FRAMES = 10;

/**
 * Moves focus to `find()` once it exists (a new page renders a frame or two after the old one went
 * away), else to the main region: never left on <body>. Does nothing if focus went elsewhere meanwhile.
 */
export function focusWhenSettled(find: () => HTMLElement | null, frames = SETTLE_FRAMES): void {
  const lost = () => !document.activeElement || document.activeElement === document.body;
  const attempt = (left: number) => {
    if (!lost()) return;
    const target = find() ?? (left === 0 ? document.getElementById('main') : null);
    if (target) target.focus();
    else requestAnimationFrame(() => attempt(left - 1));
  };
  queueMicrotask(() => attempt(frames));
}

/**
 * A destructive action that asks first, inline (no browser dialog). Opening the question moves
 * focus to the confirming button; Escape or the keep button closes it and returns focus to the
 * trigger; after confirming, focus stays on the trigger, or moves to `focusAfter` when the trigger
 * goes away.
 */
export function ConfirmButton({
  label,
  ariaLabel,
  small = false,
  question,
  confirmLabel,
  keepLabel = 'No, go back',
  busy = false,
  busyLabel,
  onConfirm,
  focusAfter = pageHeading,
}: Props) {
  const [asking, setAsking] = useState(false);
  const [focusNext, setFocusNext] = useState<FocusTarget>(null);
  const rootRef = useFocusAfterRemoval<HTMLSpanElement>(focusAfter);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const size = small ? ' small' : '';

  useEffect(() => {
    if (focusNext === 'trigger') triggerRef.current?.focus();
    if (focusNext === 'confirm') confirmRef.current?.focus();
    if (focusNext) setFocusNext(null);
  }, [focusNext]);

  const close = () => {
    setAsking(false);
    setFocusNext('trigger');
  };

  return (
    <span ref={rootRef} className="confirm-button">
      {asking ? (
        <ConfirmQuestion
          question={question}
          confirmLabel={confirmLabel}
          keepLabel={keepLabel}
          size={size}
          confirmRef={confirmRef}
          onConfirm={() => {
            close();
            onConfirm();
          }}
          onKeep={close}
        />
      ) : (
        <button
          ref={triggerRef}
          type="button"
          className={`danger${size}`}
          aria-label={ariaLabel}
          // aria-disabled rather than disabled: a disabled button drops focus to <body>
          aria-disabled={busy || undefined}
          onClick={() => {
            if (busy) return;
            setAsking(true);
            setFocusNext('confirm');
          }}
        >
          {busy && busyLabel ? busyLabel : label}
        </button>
      )}
    </span>
  );
}

/**
 * A ref for an element whose removal must not leave focus on <body>: runs before React removes it, and
 * when focus is inside it, moves focus on once the page has settled (after a navigation, the next page's
 * heading), unless something else took it.
 */
function useFocusAfterRemoval<E extends HTMLElement>(focusAfter: () => HTMLElement | null): RefObject<E | null> {
  const rootRef = useRef<E>(null);
  const focusAfterRef = useRef(focusAfter);
  focusAfterRef.current = focusAfter;
  useLayoutEffect(() => {
    const root = rootRef.current;
    return () => {
      if (root?.contains(document.activeElement)) focusWhenSettled(() => focusAfterRef.current());
    };
  }, []);
  return rootRef;
}

/** The open question: the confirming and the keep button; Escape keeps. */
function ConfirmQuestion({
  question,
  confirmLabel,
  keepLabel,
  size,
  confirmRef,
  onConfirm,
  onKeep,
}: {
  question: string;
  confirmLabel: string;
  keepLabel: string;
  /** ' small' or '' */
  size: string;
  confirmRef: RefObject<HTMLButtonElement | null>;
  onConfirm(): void;
  onKeep(): void;
}) {
  const questionId = useId();
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    onKeep();
  };
  return (
    <span className="confirm" role="group" aria-labelledby={questionId} onKeyDown={onKeyDown}>
      <span id={questionId}>{question}</span>
      <button ref={confirmRef} type="button" className={`danger${size}`} onClick={onConfirm}>
        {confirmLabel}
      </button>
      <button type="button" className={size.trim() || undefined} onClick={onKeep}>
        {keepLabel}
      </button>
    </span>
  );
}
