import { z } from 'zod';
import type { LlmPrices } from './settings';

/** What a run does when it reaches a cap: wait for the user on the budget question, or fail. */
export const BudgetPolicySchema = z.enum(['pause', 'fail']);
export type BudgetPolicy = z.infer<typeof BudgetPolicySchema>;

const caps = {
  /** US dollars, from the `llm_prices` setting (calls of a model without a price cost nothing) */
  max_cost: z.number().finite().positive().max(1_000_000),
  /** prompt + completion tokens */
  max_tokens: z.int().positive().max(1_000_000_000_000),
  /** seconds since a worker first took the run up (waiting for the user counts too) */
  max_wall_seconds: z
    .int()
    .positive()
    .max(10 * 365 * 86_400),
  max_llm_calls: z.int().positive().max(1_000_000_000),
};

/** A run's (or a project's default) budget: any of the caps, and what happens when one is reached. */
export const BudgetSchema = z
  .object({
    max_cost: caps.max_cost.optional(),
    max_tokens: caps.max_tokens.optional(),
    max_wall_seconds: caps.max_wall_seconds.optional(),
    max_llm_calls: caps.max_llm_calls.optional(),
    on_exceed: BudgetPolicySchema.default('pause'),
  })
  .strict();
export type Budget = z.infer<typeof BudgetSchema>;

/** PATCH /workflows/{id}/budget: the caps given replace the run's, `null` removes one. */
export const BudgetPatchSchema = z
  .object({
    max_cost: caps.max_cost.nullable().optional(),
    max_tokens: caps.max_tokens.nullable().optional(),
    max_wall_seconds: caps.max_wall_seconds.nullable().optional(),
    max_llm_calls: caps.max_llm_calls.nullable().optional(),
    on_exceed: BudgetPolicySchema.optional(),
  })
  .strict();
export type BudgetPatch = z.infer<typeof BudgetPatchSchema>;

/** What a run has spent: sums over its stored LLM calls, and the time since it started. */
export const SpendSchema = z.object({
  cost: z.number().min(0),
  tokens: z.int().min(0),
  llm_calls: z.int().min(0),
  wall_seconds: z.int().min(0),
});
export type Spend = z.infer<typeof SpendSchema>;

export const BudgetCapSchema = z.enum(['max_cost', 'max_tokens', 'max_wall_seconds', 'max_llm_calls']);
export type BudgetCap = z.infer<typeof BudgetCapSchema>;

/** GET /workflows/{id}/budget. */
export const WorkflowBudgetSchema = z.object({
  budget: BudgetSchema.nullable(),
  spend: SpendSchema,
  /** the caps the spend has reached */
  reached: z.array(BudgetCapSchema),
  /** the run is stopped at its budget (waiting on the budget question, or failed by it) */
  exceeded: z.boolean(),
});
export type WorkflowBudget = z.infer<typeof WorkflowBudgetSchema>;

/** GET|PUT /projects/{id}/budget: the budget new runs of the project get. */
export const ProjectBudgetSchema = z.object({ budget: BudgetSchema.nullable() }).strict();
export type ProjectBudget = z.infer<typeof ProjectBudgetSchema>;

/** The `budget_exceeded` event. */
export const BudgetExceededEventDataSchema = z.object({
  policy: BudgetPolicySchema,
  reached: z.array(BudgetCapSchema),
  /** the question asked (pause) or the error (fail) */
  message: z.string(),
  /** who found it: the worker before an LLM call, or the server on ingest */
  by: z.enum(['worker', 'server']),
});
export type BudgetExceededEventData = z.infer<typeof BudgetExceededEventDataSchema>;

/** What the worker is told of its run's budget with a dispatch. */
export const DispatchBudgetSchema = z.object({
  budget: BudgetSchema,
  spend: SpendSchema,
  prices: z.record(z.string(), z.object({ prompt_per_million: z.number(), completion_per_million: z.number() })),
});
export type DispatchBudget = z.infer<typeof DispatchBudgetSchema>;

const SPENT_BY_CAP: Record<BudgetCap, keyof Spend> = {
  max_cost: 'cost',
  max_tokens: 'tokens',
  max_wall_seconds: 'wall_seconds',
  max_llm_calls: 'llm_calls',
};
export const BUDGET_CAPS = Object.keys(SPENT_BY_CAP) as BudgetCap[];

/** The caps `spend` has reached (spent >= cap): no further LLM call may start. */
export function reachedCaps(budget: Budget | null | undefined, spend: Spend): BudgetCap[] {
  if (!budget) return [];
  return BUDGET_CAPS.filter((cap) => budget[cap] !== undefined && spend[SPENT_BY_CAP[cap]] >= budget[cap]!);
}

/** US dollars of one call's tokens at `prices` (0 for a model without a price). */
export function callCost(prices: LlmPrices, model: string, promptTokens: number, completionTokens: number): number {
  const price = Object.hasOwn(prices, model) ? prices[model] : undefined;
  if (!price) return 0;
  return (promptTokens * price.prompt_per_million + completionTokens * price.completion_per_million) / 1_000_000;
}

const LABELS: Record<BudgetCap, string> = {
  max_cost: 'cost (USD)',
  max_tokens: 'tokens',
  max_wall_seconds: 'wall time (s)',
  max_llm_calls: 'LLM calls',
};

/** "LLM calls 2/2, tokens 130/100": each reached cap, spent against cap. */
export function describeReached(budget: Budget, spend: Spend, reached: readonly BudgetCap[]): string {
  return reached
    .map((cap) => {
      const spent = spend[SPENT_BY_CAP[cap]];
      return `${LABELS[cap]} ${cap === 'max_cost' ? spent.toFixed(4) : spent}/${budget[cap]}`;
    })
    .join(', ');
}

export const BUDGET_QUESTION_PREFIX = 'Budget reached: ';

/** The question a run paused by its budget waits on. */
export const budgetQuestion = (detail: string): string =>
  `${BUDGET_QUESTION_PREFIX}${detail}. Raise the budget to continue.`;

/** The error a run failed by its budget ends with. */
export const budgetError = (detail: string): string => `budget exceeded: ${detail}`;

/** The budget after a patch: given caps replace, `null` removes; null when nothing is left to cap. */
export function patchBudget(current: Budget | null, patch: BudgetPatch): Budget | null {
  const next: Budget = { ...(current ?? { on_exceed: 'pause' }) };
  if (patch.on_exceed) next.on_exceed = patch.on_exceed;
  for (const cap of BUDGET_CAPS) {
    const value = patch[cap];
    if (value === null) delete next[cap];
    else if (value !== undefined) next[cap] = value;
  }
  return BUDGET_CAPS.some((cap) => next[cap] !== undefined) ? next : null;
}
