import { useQuery } from '@tanstack/react-query';
import { PAGE_LIMIT_MAX, SnapshotPageSchema, type SnapshotData } from '@svc/protocol';
import { apiJson } from '../../lib/api';
import { runKeys } from './keys';

const snapshotPage = (workflowId: string, cursor: string | undefined) =>
  apiJson(`/workflows/${encodeURIComponent(workflowId)}/snapshots`, SnapshotPageSchema, {
    query: { limit: PAGE_LIMIT_MAX, cursor },
  });

/**
 * The last snapshot stored at or before `ts` (a server time, as snapshots' `created_at`), or null when
 * there is none. Times, not seqs: a snapshot's seq numbers the worker's updates, an action's the events.
 */
async function snapshotBefore(workflowId: string, ts: string): Promise<SnapshotData | null> {
  const before = Date.parse(ts);
  let latest: SnapshotData | null = null;
  let cursor: string | undefined;
  do {
    const page = await snapshotPage(workflowId, cursor);
    for (const item of page.items) {
      if (Date.parse(item.created_at) > before) return latest;
      latest = item.snapshot;
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return latest;
}

/**
 * The plan as it stood when feedback came at `feedbackTs` (its last snapshot before it), so a revised
 * plan can be compared with it; null while unknown or when no feedback is given.
 */
export function usePlanBefore(workflowId: string, feedbackTs: string | null): SnapshotData | null {
  const before = useQuery({
    queryKey: runKeys.planBefore(workflowId, feedbackTs ?? ''),
    queryFn: () => snapshotBefore(workflowId, feedbackTs!),
    enabled: feedbackTs !== null,
    staleTime: Infinity,
  });
  return before.data ?? null;
}
