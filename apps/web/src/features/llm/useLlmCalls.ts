import { useInfiniteQuery } from '@tanstack/react-query';
import type { LlmCallLog } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { mergeLlmCalls, NO_TOTALS } from '../workflow/history-merge';
import { getLlmCallPage } from './api';

/** The calls loaded so far merged with the live ones, and their totals (the server's once all pages are in). */
export function useLlmCalls(workflowId: string, live: readonly LlmCallLog[]) {
  const calls = useInfiniteQuery({
    queryKey: queryKeys.llmCalls(workflowId),
    queryFn: ({ pageParam }) => getLlmCallPage(workflowId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const pages = calls.data?.pages ?? [];
  const serverTotals = pages[0]?.totals ?? NO_TOTALS;
  const { items, totals } = mergeLlmCalls(
    pages.flatMap((p) => p.items),
    serverTotals,
    pages.length > 0 && !calls.hasNextPage,
    live,
  );
  return { calls, items, totals };
}
