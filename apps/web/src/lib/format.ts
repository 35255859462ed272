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

/** A duration for people: "850 ms", "1.23 s", "45.0 s", "2 min 5 s", "1 h 2 min". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  const totalSeconds = Math.round(seconds);
  if (totalSeconds < 3600) return `${Math.floor(totalSeconds / 60)} min ${totalSeconds % 60} s`;
  const totalMinutes = Math.floor(totalSeconds / 60);
  return `${Math.floor(totalMinutes / 60)} h ${totalMinutes % 60} min`;
}

/** Milliseconds from `startIso` to `endIso` (or to `now` while it is still going); null without a start. */
export function elapsedMs(startIso: string | null | undefined, endIso: string | null | undefined, now = Date.now()) {
  if (!startIso) return null;
  const start = Date.parse(startIso);
  const end = endIso ? Date.parse(endIso) : now;
  if (Number.isNaN(start) || Number.isNaN(end)) return null;
  return Math.max(0, end - start);
}

const parse = (iso: string): Date | null => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
};

/** Date and time to the second, in the reader's locale and time zone: "Nov 25, 2026, 11:54:09 PM". */
export function formatTime(iso: string): string {
  const date = parse(iso);
  return date ? date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : iso;
}

/** Time of day to the second, for entries of one run: "23:54:09" (24-hour, the reader's time zone). */
export function formatClock(iso: string): string {
  const date = parse(iso);
  if (!date) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export const formatNumber = (n: number): string => n.toLocaleString('en-US');
