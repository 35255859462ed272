import type { DispatchBudget } from '@svc/protocol';
import type { ChatModel, ChatRequest, ChatResponse } from '../llm/llm-client';
import { BudgetedModel, BudgetMeter } from './budget-guard';

const reply: ChatResponse = {
  message: { role: 'assistant', content: 'ok', refusal: null },
  finishReason: 'stop',
  usage: { promptTokens: 100, completionTokens: 20 },
  latencyMs: 1,
};
const request = { phase: 'executing', stepIndex: 0, messages: [] } as ChatRequest;

function counting(): ChatModel & { calls: number } {
  const model = {
    model: 'm',
    calls: 0,
    chat: () => {
      model.calls++;
      return Promise.resolve(reply);
    },
  };
  return model;
}

const budget = (spend: Partial<DispatchBudget['spend']>, caps: Partial<DispatchBudget['budget']>): DispatchBudget => ({
  budget: { on_exceed: 'pause', ...caps },
  spend: { cost: 0, tokens: 0, llm_calls: 0, wall_seconds: 0, ...spend },
  prices: { m: { prompt_per_million: 1_000_000, completion_per_million: 0 } },
});

describe('BudgetMeter', () => {
  it("adds this worker's calls, tokens and cost to the spend the dispatch brought", () => {
    const meter = new BudgetMeter(budget({ llm_calls: 2, tokens: 10, cost: 1 }, { max_llm_calls: 5 }));
    meter.record('m', reply.usage);
    expect(meter.spent()).toMatchObject({ llm_calls: 3, tokens: 130, cost: 101 });
    expect(meter.reached().caps).toEqual([]);
  });

  it('reaches a cap when spent >= cap, and a reset (a raise) counts from the new spend', () => {
    const meter = new BudgetMeter(budget({ llm_calls: 1 }, { max_llm_calls: 2 }));
    meter.record('m', reply.usage);
    expect(meter.reached()).toEqual({ caps: ['max_llm_calls'], detail: 'LLM calls 2/2' });
    meter.reset(budget({ llm_calls: 2 }, { max_llm_calls: 3 }));
    expect(meter.reached().caps).toEqual([]);
  });

  it('never reaches anything without a budget', () => {
    const meter = new BudgetMeter(undefined);
    for (let i = 0; i < 5; i++) meter.record('m', reply.usage);
    expect(meter.reached().caps).toEqual([]);
  });
});

describe('BudgetedModel', () => {
  it('makes no call while a cap is reached, and makes it once the handler raised the budget', async () => {
    const inner = counting();
    const meter = new BudgetMeter(budget({ llm_calls: 1 }, { max_llm_calls: 1 }));
    const stops: string[] = [];
    const model = new BudgetedModel(inner, meter, (caps, detail) => {
      stops.push(`${caps.join(',')}: ${detail}`);
      expect(inner.calls).toBe(0);
      meter.reset(budget({ llm_calls: 1 }, { max_llm_calls: 3 }));
      return Promise.resolve();
    });
    await model.chat(request);
    expect(stops).toEqual(['max_llm_calls: LLM calls 1/1']);
    expect(inner.calls).toBe(1);
  });

  it('passes the failure of a `fail` handler on without calling', async () => {
    const inner = counting();
    const meter = new BudgetMeter(budget({ tokens: 50 }, { max_tokens: 50, on_exceed: 'fail' }));
    const model = new BudgetedModel(inner, meter, () => Promise.reject(new Error('budget exceeded: tokens 50/50')));
    await expect(model.chat(request)).rejects.toThrow('budget exceeded: tokens 50/50');
    expect(inner.calls).toBe(0);
  });
});
