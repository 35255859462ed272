import { type LlmCallLog, type LlmPrices, LlmPricesSchema } from '@svc/protocol';

/** Token sums of one model (known counts only). */
export interface ModelUsage {
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
}

/** Token sums per model, in order of first use. */
export function usageByModel(calls: readonly LlmCallLog[]): ModelUsage[] {
  const byModel = new Map<string, ModelUsage>();
  for (const call of calls) {
    const sum = byModel.get(call.model) ?? { model: call.model, prompt_tokens: 0, completion_tokens: 0 };
    sum.prompt_tokens += call.prompt_tokens ?? 0;
    sum.completion_tokens += call.completion_tokens ?? 0;
    byModel.set(call.model, sum);
  }
  return [...byModel.values()];
}

export const LLM_PRICES_SETTING = 'llm_prices';

/** The `llm_prices` setting read: prices, none set, or why the value cannot be used. */
export type PriceList =
  | { kind: 'prices'; prices: LlmPrices }
  | { kind: 'unset' }
  | { kind: 'invalid'; problem: string };

export function readPrices(settings: Readonly<Record<string, string>> | undefined): PriceList {
  const raw = settings?.[LLM_PRICES_SETTING];
  if (raw === undefined || raw.trim() === '') return { kind: 'unset' };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { kind: 'invalid', problem: 'it is not JSON' };
  }
  const parsed = LlmPricesSchema.safeParse(json);
  if (!parsed.success)
    return { kind: 'invalid', problem: 'it is not {"<model>": {prompt_per_million, completion_per_million}}' };
  return Object.keys(parsed.data).length === 0 ? { kind: 'unset' } : { kind: 'prices', prices: parsed.data };
}

export interface CostEstimate {
  /** US dollars for the models that have a price */
  usd: number;
  /** models used that have no price (their tokens are not in `usd`) */
  unpriced: string[];
}

export function estimateCost(usage: readonly ModelUsage[], prices: LlmPrices): CostEstimate {
  let usd = 0;
  const unpriced: string[] = [];
  for (const { model, prompt_tokens, completion_tokens } of usage) {
    const price = Object.hasOwn(prices, model) ? prices[model] : undefined;
    if (!price) {
      if (prompt_tokens + completion_tokens > 0) unpriced.push(model);
      continue;
    }
    usd += (prompt_tokens * price.prompt_per_million + completion_tokens * price.completion_per_million) / 1_000_000;
  }
  return { usd, unpriced };
}

/** Dollars with cents, or more digits for small sums so they do not read as $0.00. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd < 0.01) return `$${usd.toPrecision(2)}`;
  return `$${usd.toFixed(2)}`;
}
