import { useSyncExternalStore } from 'react';

/** Whether the user asked for browser notifications here (remembered; the browser's permission is separate). */
export const NOTIFY_STORAGE_KEY = 'svc-notify';

export type NotifyState = 'unsupported' | 'off' | 'on' | 'blocked';

const listeners = new Set<() => void>();
const changed = () => listeners.forEach((listener) => listener());

const supported = () => typeof window !== 'undefined' && 'Notification' in window;

function optedIn(): boolean {
  try {
    return window.localStorage.getItem(NOTIFY_STORAGE_KEY) === 'on';
  } catch {
    return false;
  }
}

function notifyState(): NotifyState {
  if (!supported()) return 'unsupported';
  if (Notification.permission === 'denied') return 'blocked';
  return optedIn() && Notification.permission === 'granted' ? 'on' : 'off';
}

export function useNotifyState(): NotifyState {
  return useSyncExternalStore((listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, notifyState);
}

/** Asks the browser's permission (only ever from a click) and remembers the opt-in. */
export async function turnNotificationsOn(): Promise<void> {
  if (!supported()) return;
  const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
  try {
    if (permission === 'granted') window.localStorage.setItem(NOTIFY_STORAGE_KEY, 'on');
  } catch {
    // storage disabled: nothing is remembered, so nothing is shown
  }
  changed();
}

export function turnNotificationsOff(): void {
  try {
    window.localStorage.removeItem(NOTIFY_STORAGE_KEY);
  } catch {
    // nothing was remembered either
  }
  changed();
}

/** Shows one browser notification when the user opted in; a click brings the tab forward and calls `open`. */
export function notify(title: string, body: string, tag: string, open: () => void): void {
  if (notifyState() !== 'on') return;
  const notification = new Notification(title, { body, tag });
  notification.onclick = () => {
    window.focus();
    open();
    notification.close();
  };
}
