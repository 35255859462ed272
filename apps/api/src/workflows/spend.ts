import type { Db } from '@svc/db';
import { BudgetSchema, callCost, type Budget, type LlmPrices, type Spend } from '@svc/protocol';
import { readSetting } from '../routes/settings/catalog';

/** A budget as stored in a JSON column (a workflow's, a project's default); null when none or unreadable. */
export function storedBudget(text: string | null | undefined): Budget | null {
  if (!text) return null;
  try {
    const parsed = BudgetSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export const budgetText = (budget: Budget | null | undefined): string | null =>
  budget ? JSON.stringify(budget) : null;

/** The token counts of one model's calls (unknown usage counts as 0). */
export interface ModelCalls {
  model: string;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
}

/**
 * What a run has spent: its LLM calls (tokens, count, cost at `prices`) and the seconds from `startedAt`
 * to `until` (waiting for the user counts: the clock runs while the run is unfinished).
 */
export function spendOf(calls: readonly ModelCalls[], prices: LlmPrices, startedAt: Date | null, until: Date): Spend {
  let cost = 0;
  let tokens = 0;
  let llmCalls = 0;
  for (const c of calls) {
    cost += callCost(prices, c.model, c.prompt_tokens, c.completion_tokens);
    tokens += c.prompt_tokens + c.completion_tokens;
    llmCalls += c.calls;
  }
  const wall = startedAt ? Math.max(0, Math.floor((until.getTime() - startedAt.getTime()) / 1000)) : 0;
  return { cost, tokens, llm_calls: llmCalls, wall_seconds: wall };
}

/** The run's agent calls by model (a title job's calls are the server's side work, not the run's). */
export async function callsByModel(db: Db, workflowId: string): Promise<ModelCalls[]> {
  const groups = await db.llmCallLog.groupBy({
    by: ['model'],
    where: { workflow_id: workflowId, phase: { not: 'title' } },
    _count: { _all: true, error: true },
    _sum: { prompt_tokens: true, completion_tokens: true },
  });
  return groups.map((g) => ({
    model: g.model,
    // A failed attempt's tokens count (they were spent), the call does not: it is tried again.
    calls: g._count._all - g._count.error,
    prompt_tokens: g._sum.prompt_tokens ?? 0,
    completion_tokens: g._sum.completion_tokens ?? 0,
  }));
}

const WALL_GRACE_MS = 30_000;

/** The run's latest agent call, taken out of the sums: what was spent when that call started. */
export async function callsBeforeLast(
  db: Db,
  workflowId: string,
  calls: ModelCalls[],
): Promise<{ calls: ModelCalls[]; at: Date } | null> {
  const last = await db.llmCallLog.findFirst({
    where: { workflow_id: workflowId, phase: { not: 'title' } },
    orderBy: { seq: 'desc' },
    select: {
      model: true,
      prompt_tokens: true,
      completion_tokens: true,
      created_at: true,
      latency_ms: true,
      error: true,
    },
  });
  if (!last) return null;
  const before = calls.map((c) =>
    c.model === last.model
      ? {
          ...c,
          calls: c.calls - (last.error === null ? 1 : 0),
          prompt_tokens: c.prompt_tokens - (last.prompt_tokens ?? 0),
          completion_tokens: c.completion_tokens - (last.completion_tokens ?? 0),
        }
      : c,
  );
  // When the call started, less a grace for the two clocks and the trip: the worker checked wall time then.
  return { calls: before, at: new Date(last.created_at.getTime() - last.latency_ms - WALL_GRACE_MS) };
}

export const llmPrices = (db: Db): Promise<LlmPrices> => readSetting(db, 'llm_prices');
