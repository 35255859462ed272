import { useEffect } from 'react';

let badge = 0;
let pageTitle = '';

function apply(): void {
  const base = pageTitle ? `${pageTitle} · svc` : 'svc';
  document.title = badge > 0 ? `(${badge}) ${base}` : base;
}

/** Sets the tab title to "<title> · svc" while the calling page is shown. */
export function useDocumentTitle(title: string | null | undefined): void {
  useEffect(() => {
    pageTitle = title ?? '';
    apply();
  }, [title]);
}

/** The count shown in front of every tab title, e.g. "(2) Build a shop · svc" for runs waiting on you. */
export function setTitleBadge(count: number): void {
  badge = Math.max(0, Math.floor(count));
  apply();
}
