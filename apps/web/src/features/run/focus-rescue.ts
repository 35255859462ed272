import { createContext, useCallback, useContext, useEffect, useMemo, useRef, type RefObject } from 'react';

/** Arms the rescue when an action starts; call the returned function once the action has settled. */
export type ArmFocusRescue = () => () => void;

export interface FocusRescue {
  arm: ArmFocusRescue;
  /** run after a render that may have removed the focused control (the page does after each of its own) */
  check(): void;
  /** moves focus to the page's target now: before removing the focused control on purpose */
  moveFocus(): void;
}

/**
 * After an action whose controls disappear with the state it changes (Cancel, Retry, Send answer),
 * focus would fall to <body> and a keyboard user would start again from the top. While an action is
 * armed, and for the first check after it settled, focus that fell is moved to `target`.
 */
export function useFocusRescue(target: RefObject<HTMLElement | null>): FocusRescue {
  const armed = useRef<{ settled: boolean } | null>(null);
  const check = useCallback(() => {
    const action = armed.current;
    if (!action) return;
    const active = document.activeElement;
    const dropped = !active || active === document.body || !active.isConnected;
    if (dropped) target.current?.focus();
    if (dropped || action.settled) armed.current = null;
  }, [target]);
  useEffect(check);
  const arm = useCallback(() => {
    const action = { settled: false };
    armed.current = action;
    return () => {
      action.settled = true;
    };
  }, []);
  const moveFocus = useCallback(() => target.current?.focus(), [target]);
  return useMemo(() => ({ arm, check, moveFocus }), [arm, check, moveFocus]);
}

export const FocusRescueContext = createContext<FocusRescue>({
  arm: () => () => undefined,
  check: () => undefined,
  moveFocus: () => undefined,
});
export const useArmFocusRescue = (): ArmFocusRescue => useContext(FocusRescueContext).arm;
export const usePageFocus = (): FocusRescue => useContext(FocusRescueContext);
