import { WorkflowPageSchema, type WorkflowListItem, type WorkflowPage } from '@svc/protocol';
import type { Context } from '../context';
import { EXIT } from '../errors';

export interface ListFlags {
  limit?: number;
  cursor?: string;
  status?: string;
  author?: string;
  worker?: string;
  since?: string;
  until?: string;
  query?: string;
}

/** `2026-01-02` means that day's start in UTC; a full timestamp is sent as given (the server checks it). */
export function instantOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text;
}

/** `svc list`: a page of the project's runs with the filters the server applies, and where it sits in the count. */
export async function listCommand(ctx: Context, flags: ListFlags): Promise<number> {
  const projectId = await ctx.projectId();
  const page = await ctx.client().request(`/projects/${encodeURIComponent(projectId)}/workflows`, WorkflowPageSchema, {
    query: {
      limit: flags.limit,
      cursor: flags.cursor,
      status: flags.status,
      author: flags.author,
      worker: flags.worker,
      since: instantOf(flags.since),
      until: instantOf(flags.until),
      q: flags.query,
    },
  });
  ctx.result(page.items, () => listText(page));
  return EXIT.ok;
}

/** One line per run (id, status, author, worker, duration, title; then its question or failure), and the count. */
export function listText(page: WorkflowPage): string {
  const lines = page.items.flatMap((w) => [
    [
      w.id,
      w.status.padEnd(12),
      authorText(w).padEnd(16),
      (w.worker_name ?? '-').padEnd(14),
      runDurationText(w).padStart(8),
      w.title,
    ].join('  '),
    ...(w.status === 'waiting_user' && w.question ? [`    question: ${w.question}`] : []),
    ...(w.status === 'failed' && w.error ? [`    failed: ${w.error}`] : []),
  ]);
  // Counting stops at 1,000: "of 1000+" when more match.
  const total = `${page.total}${page.total_capped ? '+' : ''}`;
  // A cursor made without counts, deep in the list: only a lower bound of what comes before is known.
  const shown =
    page.items.length === 0
      ? `0 of ${total}`
      : page.offset_capped
        ? `${page.items.length} after more than ${page.offset} of ${total}`
        : `${page.offset + 1}-${page.offset + page.items.length} of ${total}`;
  return [...lines, page.next_cursor ? `${shown} (next: --cursor ${page.next_cursor})` : shown].join('\n');
}

function authorText({ author }: WorkflowListItem): string {
  const who = author.login ?? author.user_id;
  return author.kind === 'user' ? who : `${author.kind}:${who}`;
}

/** 42s, 3m05s, 2h07m; `-` before a worker took the run. */
/** How long a run took, or has been running so far (the server gives `duration_ms` only once it finished). */
export const runDurationText = (run: { duration_ms: number | null; started_at: string | null }): string =>
  durationText(run.duration_ms ?? (run.started_at ? Date.now() - Date.parse(run.started_at) : null));

export function durationText(ms: number | null): string {
  if (ms === null) return '-';
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
