import { useQuery } from '@tanstack/react-query';
import type { LlmCallLog, LlmCallTotals } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { runKeys } from './keys';
import { getSettings } from '../settings/api';
import { getLlmCalls } from '../workflow/api';
import { mergeLlmCalls } from '../workflow/history-merge';
import { estimateCost, readPrices, usageByModel, type CostEstimate, type PriceList } from './cost';
import { pollWhileOffline } from './poll';

/** Pages of LLM calls read for the cost estimate; beyond them the estimate covers the calls read. */
const MAX_USAGE_PAGES = 20;
const USAGE_PAGE_SIZE = 1000;

interface LoadedUsage {
  calls: LlmCallLog[];
  totals: LlmCallTotals;
  complete: boolean;
}

async function loadUsage(workflowId: string): Promise<LoadedUsage> {
  const calls: LlmCallLog[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_USAGE_PAGES; page++) {
    const answer = await getLlmCalls(workflowId, cursor, USAGE_PAGE_SIZE);
    calls.push(...answer.items);
    if (!answer.next_cursor) return { calls, totals: answer.totals, complete: true };
    cursor = answer.next_cursor;
    if (page === MAX_USAGE_PAGES - 1) return { calls, totals: answer.totals, complete: false };
  }
  throw new Error('unreachable');
}

export interface Usage {
  totals: LlmCallTotals | null;
  prices: PriceList | null;
  /** null until prices and calls are loaded, or when no prices are set */
  cost: (CostEstimate & { partial: boolean }) | null;
}

/** Token totals and the estimated cost of a run: its LLM calls (loaded, then live) and the `llm_prices` setting. */
export function useUsage(workflowId: string, live: readonly LlmCallLog[], following: boolean): Usage {
  const loaded = useQuery({
    queryKey: runKeys.usage(workflowId),
    queryFn: () => loadUsage(workflowId),
    refetchInterval: pollWhileOffline(following),
  });
  const settings = useQuery({ queryKey: queryKeys.settings, queryFn: getSettings });
  if (!loaded.data) return { totals: null, prices: null, cost: null };
  const merged = mergeLlmCalls(loaded.data.calls, loaded.data.totals, loaded.data.complete, live);
  const prices = settings.data ? readPrices(settings.data) : null;
  const cost =
    prices?.kind === 'prices'
      ? { ...estimateCost(usageByModel(merged.items), prices.prices), partial: !loaded.data.complete }
      : null;
  return { totals: merged.totals, prices, cost };
}
