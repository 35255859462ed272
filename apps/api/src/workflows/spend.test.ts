import { patchBudget, reachedCaps, type Budget } from '@svc/protocol';
import { spendOf, storedBudget } from './spend';

const prices = { big: { prompt_per_million: 10, completion_per_million: 30 } };
const calls = [
  { model: 'big', calls: 2, prompt_tokens: 1000, completion_tokens: 500 },
  { model: 'free', calls: 1, prompt_tokens: 40, completion_tokens: 10 },
];

describe('spendOf', () => {
  it('sums calls and tokens over models and prices only the priced ones', () => {
    const spend = spendOf(calls, prices, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:01:30.900Z'));
    expect(spend).toEqual({ cost: (1000 * 10 + 500 * 30) / 1e6, tokens: 1550, llm_calls: 3, wall_seconds: 90 });
  });

  it('counts no wall time before the run started', () => {
    expect(spendOf([], {}, null, new Date()).wall_seconds).toBe(0);
  });
});

describe('reachedCaps', () => {
  const spend = { cost: 0.025, tokens: 1550, llm_calls: 3, wall_seconds: 90 };

  it('reports each cap the spend has reached (spent >= cap), none without a budget', () => {
    const budget: Budget = { max_llm_calls: 3, max_tokens: 1551, max_cost: 0.02, on_exceed: 'pause' };
    expect(reachedCaps(budget, spend)).toEqual(['max_cost', 'max_llm_calls']);
    expect(reachedCaps(null, spend)).toEqual([]);
    expect(reachedCaps({ max_wall_seconds: 91, on_exceed: 'fail' }, spend)).toEqual([]);
  });
});

describe('patchBudget', () => {
  it('replaces the caps given, removes the null ones and keeps the rest', () => {
    const current: Budget = { max_llm_calls: 2, max_tokens: 100, on_exceed: 'fail' };
    expect(patchBudget(current, { max_llm_calls: 5, max_tokens: null })).toEqual({
      max_llm_calls: 5,
      on_exceed: 'fail',
    });
  });

  it('is null once no cap is left', () => {
    expect(patchBudget({ max_llm_calls: 2, on_exceed: 'pause' }, { max_llm_calls: null })).toBeNull();
  });
});

describe('storedBudget', () => {
  it('reads a stored budget and ignores an unreadable one', () => {
    expect(storedBudget('{"max_tokens":10}')).toEqual({ max_tokens: 10, on_exceed: 'pause' });
    expect(storedBudget('{"max_tokens":-1}')).toBeNull();
    expect(storedBudget('not json')).toBeNull();
    expect(storedBudget(null)).toBeNull();
  });
});
