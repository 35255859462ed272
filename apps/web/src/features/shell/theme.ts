import { useLayoutEffect, useSyncExternalStore } from 'react';

/** "system" follows prefers-color-scheme; "light" and "dark" override it. */
export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];
export const THEME_STORAGE_KEY = 'svc-theme';

const listeners = new Set<() => void>();

export function parseThemeChoice(value: string | null | undefined): ThemeChoice {
  return value === 'light' || value === 'dark' ? value : 'system';
}

function readStored(): ThemeChoice {
  try {
    return parseThemeChoice(window.localStorage.getItem(THEME_STORAGE_KEY));
  } catch {
    return 'system'; // storage may be disabled (private mode, policies): the system decides
  }
}

/** The stylesheet's dark/light variables follow `data-theme` on <html>; none means the system's choice. */
function apply(choice: ThemeChoice): void {
  if (choice === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}

/** Remembers and applies a choice, in this tab and (through the storage event) in the others. */
export function setThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === 'system') window.localStorage.removeItem(THEME_STORAGE_KEY);
    else window.localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // not remembered, still applied
  }
  apply(choice);
  current = choice;
  for (const listener of listeners) listener();
}

let current: ThemeChoice | null = null;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key !== THEME_STORAGE_KEY && event.key !== null) return;
    current = readStored();
    apply(current);
    listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

const snapshot = (): ThemeChoice => (current ??= readStored());

/** The current choice; applies the remembered one before the first paint of the page using it. */
export function useThemeChoice(): ThemeChoice {
  const choice = useSyncExternalStore(subscribe, snapshot);
  useLayoutEffect(() => apply(choice), [choice]);
  return choice;
}
