import { codePointLength, truncateChars, truncateUtf8 } from '@svc/text';

/** Shown in lists: the text cut to `maxChars` characters, never inside a character, with an ellipsis. */
export function shorten(text: string, maxChars: number): string {
  if (codePointLength(text) <= maxChars) return text;
  return `${truncateChars(text, Math.max(0, maxChars - 1))}…`;
}

/** The first `lines` non-blank lines of a text, for previews that must stay one or two lines tall. */
export function previewLines(text: string, lines: number, maxChars: number): string {
  const all = text.split(/\r\n|\r|\n/).filter((line) => line.trim() !== '');
  const head = all.slice(0, lines).join('\n');
  const cut = shorten(head, maxChars);
  if (cut !== head) return cut;
  return all.length > lines ? `${head}…` : head;
}

/** Long tool output cut to a byte budget for display; `omittedBytes` says how much is hidden. */
export function clipOutput(text: string, maxBytes: number): { text: string; omittedBytes: number } {
  const { text: cut, omittedBytes } = truncateUtf8(text, maxBytes);
  return { text: cut, omittedBytes };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export const formatNumber = (n: number): string => n.toLocaleString('en-US');
