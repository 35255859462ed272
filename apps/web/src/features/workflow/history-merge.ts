import type { ExecutionLogEntry, LlmCallLog, LlmCallTotals } from '@svc/protocol';

/** Loaded log pages plus live entries: each seq once, in seq order. */
export function mergeLog(
  loaded: readonly ExecutionLogEntry[],
  live: readonly ExecutionLogEntry[],
): ExecutionLogEntry[] {
  const bySeq = new Map<number, ExecutionLogEntry>();
  for (const entry of [...loaded, ...live]) if (!bySeq.has(entry.seq)) bySeq.set(entry.seq, entry);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

export const NO_TOTALS: LlmCallTotals = {
  calls: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  latency_ms: 0,
  unknown_usage_calls: 0,
  failed_calls: 0,
};

/** The server's sums, computed here: token sums of known counts, and how many calls had none. */
export function totalsOf(calls: readonly LlmCallLog[]): LlmCallTotals {
  return calls.reduce<LlmCallTotals>(
    (sum, c) => ({
      calls: sum.calls + 1,
      prompt_tokens: sum.prompt_tokens + (c.prompt_tokens ?? 0),
      completion_tokens: sum.completion_tokens + (c.completion_tokens ?? 0),
      latency_ms: sum.latency_ms + c.latency_ms,
      unknown_usage_calls: sum.unknown_usage_calls + (c.prompt_tokens === null || c.completion_tokens === null ? 1 : 0),
      failed_calls: sum.failed_calls + (c.error === null ? 0 : 1),
    }),
    NO_TOTALS,
  );
}

/**
 * Loaded LLM calls plus live ones, each id once, oldest first. When every page is loaded the sums are
 * computed from the list; otherwise the server's sums (which cover unloaded pages) are shown, and the
 * page refetches them whenever a call is logged.
 */
export function mergeLlmCalls(
  loaded: readonly LlmCallLog[],
  serverTotals: LlmCallTotals,
  allLoaded: boolean,
  live: readonly LlmCallLog[],
): { items: LlmCallLog[]; totals: LlmCallTotals } {
  const known = new Set(loaded.map((c) => c.id));
  const items = [...loaded, ...live.filter((c) => !known.has(c.id))].sort((a, b) =>
    a.created_at.localeCompare(b.created_at),
  );
  return { items, totals: allLoaded ? totalsOf(items) : serverTotals };
}
