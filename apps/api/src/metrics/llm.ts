import type { Db } from '@svc/db';
import { callCost, type LlmPrices } from '@svc/protocol';
import { llmCalls, llmCost, llmTokens } from './registry';
import { llmPrices } from '../workflows/spend';

/** One stored LLM call log (an attempt), as the worker reported it. */
export interface StoredLlmCall {
  model: string;
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
}

const PRICES_FRESH_MS = 30_000;
let prices: { value: LlmPrices; at: number; db: Db } | null = null;

/**
 * Counts LLM call logs just committed by this process's ingest: the one place a call log is stored, once
 * (a duplicate update is not stored again), so replicas never count one call twice. The cost is estimated
 * at the `llm_prices` setting, read at most every 30 s (not awaited by the ingest).
 */
export function countStoredLlmCalls(db: Db, calls: readonly StoredLlmCall[]): Promise<void> {
  for (const call of calls) {
    llmCalls.inc({ model: call.model });
    if (call.prompt_tokens) llmTokens.inc({ model: call.model, type: 'prompt' }, call.prompt_tokens);
    if (call.completion_tokens) llmTokens.inc({ model: call.model, type: 'completion' }, call.completion_tokens);
  }
  return currentPrices(db).then((value) => {
    for (const call of calls) {
      const cost = callCost(value, call.model, call.prompt_tokens ?? 0, call.completion_tokens ?? 0);
      // (a model without a price still gets its series, at 0)
      llmCost.inc({ model: call.model }, cost);
    }
  });
}

async function currentPrices(db: Db): Promise<LlmPrices> {
  if (prices && prices.db === db && Date.now() - prices.at < PRICES_FRESH_MS) return prices.value;
  const value = await llmPrices(db);
  prices = { value, at: Date.now(), db };
  return value;
}
