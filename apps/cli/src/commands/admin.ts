import { QueueDepthSchema, type QueueDepth } from '@svc/protocol';
import type { Context } from '../context';
import { EXIT } from '../errors';

/** The queue as a table: one line per label set, deepest first. */
export function queueText(queue: QueueDepth): string {
  if (queue.groups.length === 0) return `queue empty (${queue.online_workers} workers online)`;
  const rows = queue.groups.map((g) => [
    g.requires.length ? g.requires.join(',') : '(any)',
    String(g.depth),
    `${g.oldest_wait_seconds}s`,
    String(g.matching_online_workers),
  ]);
  const header = ['REQUIRES', 'DEPTH', 'OLDEST WAIT', 'MATCHING WORKERS'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line), `${queue.total} queued, ${queue.online_workers} workers online`].join('\n');
}

/** `svc admin queue`: queued runs by required label set (administrators), for autoscalers and people. */
export async function adminQueueCommand(ctx: Context): Promise<number> {
  const queue = await ctx.client().request('/admin/queue', QueueDepthSchema);
  ctx.result(queue, () => queueText(queue));
  return EXIT.ok;
}
