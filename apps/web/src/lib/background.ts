/**
 * Starts work nothing waits for (a refetch after a change, a navigation from an effect or a click). React
 * Query and React Router show their own failures on the page, so a rejection that still gets here is a
 * bug: it is logged rather than left as an unhandled rejection.
 */
export function inBackground(work: Promise<unknown> | void): void {
  Promise.resolve(work).catch((error: unknown) => console.error('svc: background work failed', error));
}
