import type { LlmCallLog } from '@svc/protocol';
import { estimateCost, formatUsd, readPrices, usageByModel } from './cost';

const call = (model: string, prompt: number | null, completion: number | null): LlmCallLog => ({
  id: `${model}-${prompt}-${completion}`,
  phase: 'executing',
  model,
  prompt_tokens: prompt,
  completion_tokens: completion,
  latency_ms: 10,
  step_index: 0,
  attempt: 1,
  error: null,
  finish_reason: 'stop',
  has_detail: false,
  created_at: '2026-01-01T00:00:00Z',
});

describe('usageByModel', () => {
  it('sums known token counts per model, unknown counts as nothing', () => {
    expect(usageByModel([call('a', 100, 10), call('b', 5, 5), call('a', null, null), call('a', 1, 2)])).toEqual([
      { model: 'a', prompt_tokens: 101, completion_tokens: 12 },
      { model: 'b', prompt_tokens: 5, completion_tokens: 5 },
    ]);
  });
});

describe('readPrices', () => {
  it('reads the llm_prices setting', () => {
    const value = JSON.stringify({ gpt: { prompt_per_million: 2.5, completion_per_million: 10 } });
    expect(readPrices({ llm_prices: value })).toEqual({
      kind: 'prices',
      prices: { gpt: { prompt_per_million: 2.5, completion_per_million: 10 } },
    });
  });

  it('says when no prices are set, and why a value cannot be used', () => {
    expect(readPrices({})).toEqual({ kind: 'unset' });
    expect(readPrices({ llm_prices: '  ' })).toEqual({ kind: 'unset' });
    expect(readPrices({ llm_prices: '{}' })).toEqual({ kind: 'unset' });
    expect(readPrices({ llm_prices: '{nope' })).toMatchObject({ kind: 'invalid', problem: 'it is not JSON' });
    expect(readPrices({ llm_prices: '{"gpt": {"prompt_per_million": -1, "completion_per_million": 1}}' }).kind).toBe(
      'invalid',
    );
  });
});

describe('estimateCost', () => {
  const prices = {
    gpt: { prompt_per_million: 2, completion_per_million: 8 },
    small: { prompt_per_million: 0.1, completion_per_million: 0.4 },
  };

  it('prices each model by its own rates', () => {
    const usage = [
      { model: 'gpt', prompt_tokens: 1_000_000, completion_tokens: 500_000 },
      { model: 'small', prompt_tokens: 2_000_000, completion_tokens: 0 },
    ];
    expect(estimateCost(usage, prices)).toEqual({ usd: 2 + 4 + 0.2, unpriced: [] });
  });

  it('names the models without a price instead of counting them as free', () => {
    const usage = [
      { model: 'gpt', prompt_tokens: 1000, completion_tokens: 0 },
      { model: 'toString', prompt_tokens: 10, completion_tokens: 10 },
      { model: 'unused', prompt_tokens: 0, completion_tokens: 0 },
    ];
    expect(estimateCost(usage, prices)).toEqual({ usd: 0.002, unpriced: ['toString'] });
  });
});

describe('formatUsd', () => {
  it('shows cents, and small sums with two significant digits', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(1.234)).toBe('$1.23');
    expect(formatUsd(0.00123)).toBe('$0.0012');
  });
});
