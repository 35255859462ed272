import {
  callCost,
  describeReached,
  reachedCaps,
  type BudgetCap,
  type BudgetPolicy,
  type DispatchBudget,
  type Spend,
} from '@svc/protocol';
import type { ChatModel, ChatRequest, ChatResponse } from '../llm/llm-client';

/** The run reached a cap of its budget and its policy is `fail`. */
export class BudgetExceededError extends Error {
  constructor(
    message: string,
    readonly reached: BudgetCap[],
  ) {
    super(message);
    this.name = 'BudgetExceededError';
  }
}

/**
 * The run's spend as this worker counts it: what the server said at the dispatch (or the raise), plus
 * the calls made since and the time passed since. The server counts again on ingest and is authoritative.
 */
export class BudgetMeter {
  private base: DispatchBudget | undefined;
  private since = Date.now();
  private local = { cost: 0, tokens: 0, llm_calls: 0 };

  constructor(budget: DispatchBudget | undefined) {
    this.reset(budget);
  }

  /** A new budget and the server's spend (a raise): counted from here on. */
  reset(budget: DispatchBudget | undefined): void {
    this.base = budget;
    this.since = Date.now();
    this.local = { cost: 0, tokens: 0, llm_calls: 0 };
  }

  get policy(): BudgetPolicy {
    return this.base?.budget.on_exceed ?? 'pause';
  }

  record(model: string, usage: ChatResponse['usage']): void {
    const prompt = usage.promptTokens ?? 0;
    const completion = usage.completionTokens ?? 0;
    this.local.llm_calls += 1;
    this.local.tokens += prompt + completion;
    if (this.base) this.local.cost += callCost(this.base.prices, model, prompt, completion);
  }

  spent(now = Date.now()): Spend {
    const base = this.base?.spend ?? { cost: 0, tokens: 0, llm_calls: 0, wall_seconds: 0 };
    return {
      cost: base.cost + this.local.cost,
      tokens: base.tokens + this.local.tokens,
      llm_calls: base.llm_calls + this.local.llm_calls,
      wall_seconds: base.wall_seconds + Math.floor((now - this.since) / 1000),
    };
  }

  /** The caps reached, with what the budget question or error says of them. */
  reached(): { caps: BudgetCap[]; detail: string } {
    if (!this.base) return { caps: [], detail: '' };
    const spend = this.spent();
    const caps = reachedCaps(this.base.budget, spend);
    return { caps, detail: describeReached(this.base.budget, spend, caps) };
  }
}

/** What the run does when a cap is reached before an LLM call: waits for a raise, or throws. */
export type OnBudgetReached = (caps: BudgetCap[], detail: string) => Promise<void>;

/** The run's model behind a budget check: no LLM call starts while a cap is reached. */
export class BudgetedModel implements ChatModel {
  constructor(
    private readonly inner: ChatModel,
    private readonly meter: BudgetMeter,
    private readonly onReached: OnBudgetReached,
  ) {}

  get model(): string {
    return this.inner.model;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    for (let check = this.meter.reached(); check.caps.length > 0; check = this.meter.reached())
      await this.onReached(check.caps, check.detail);
    const reply = await this.inner.chat(request);
    this.meter.record(this.inner.model, reply.usage);
    return reply;
  }
}
