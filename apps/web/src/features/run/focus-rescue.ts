import { createContext, useCallback, useContext, useEffect, useRef, type RefObject } from 'react';

/** Arms the rescue when an action starts; call the returned function once the action has settled. */
export type ArmFocusRescue = () => () => void;

/**
 * After an action whose controls disappear with the state it changes (Cancel, Retry, Send answer),
 * focus would fall to <body> and a keyboard user would start again from the top. While an action is
 * armed, and for the first render after it settled, the page moves focus to `target` if it fell.
 */
export function useFocusRescue(target: RefObject<HTMLElement | null>): ArmFocusRescue {
  const armed = useRef<{ settled: boolean } | null>(null);
  useEffect(() => {
    const action = armed.current;
    if (!action) return;
    const active = document.activeElement;
    const dropped = !active || active === document.body || !active.isConnected;
    if (dropped) target.current?.focus();
    if (dropped || action.settled) armed.current = null;
  });
  return useCallback(() => {
    const action = { settled: false };
    armed.current = action;
    return () => {
      action.settled = true;
    };
  }, []);
}

export const FocusRescueContext = createContext<ArmFocusRescue>(() => () => undefined);
export const useArmFocusRescue = (): ArmFocusRescue => useContext(FocusRescueContext);
