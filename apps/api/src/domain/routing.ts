/**
 * Label routing (issue 23): a run may require worker labels; only a worker whose labels include every
 * one of them takes it. The labels are stored on the workflow as text, a sorted JSON array, so runs
 * with the same label set group and compare in the database (`GET /admin/queue`, the unroutable notice).
 */

/** The stored form of a label set: sorted, without repeats, as JSON (`[]`: any worker). */
export function encodeRequires(labels: readonly string[]): string {
  return JSON.stringify([...new Set(labels)].sort());
}

/** The stored form of the empty label set: a run any worker may take. */
export const NO_LABELS = '[]';

/** The labels of a stored set; a value that is not a list of strings reads as none. */
export function decodeRequires(stored: string): string[] {
  try {
    const value: unknown = JSON.parse(stored);
    return Array.isArray(value) ? value.filter((label): label is string => typeof label === 'string') : [];
  } catch {
    return [];
  }
}

/** A worker row's `labels` (JSON) as a list of strings. */
export function labelsOf(labels: unknown): string[] {
  return Array.isArray(labels) ? labels.filter((label): label is string => typeof label === 'string') : [];
}

/** Whether a worker with these labels may take a run that requires `required`. */
export function satisfies(workerLabels: readonly string[], required: readonly string[]): boolean {
  if (required.length === 0) return true;
  const has = new Set(workerLabels);
  return required.every((label) => has.has(label));
}

/** What a queued run says while no online worker has its labels. */
export function unroutableReason(required: readonly string[]): string {
  return `no online worker has the labels ${required.join(', ')}`;
}
