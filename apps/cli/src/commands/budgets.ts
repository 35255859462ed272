import type { Command } from 'commander';
import { workflowPath } from '@svc/client';
import { BudgetPatchSchema, BudgetSchema, WorkflowBudgetSchema, type WorkflowBudget } from '@svc/protocol';
import type { Context } from '../context';
import { CliError, EXIT } from '../errors';

/** The budget flags as commander gives them (`--max-cost` on `budget set`, `--budget-max-cost` on `run`). */
export interface BudgetFlags {
  maxCost?: string;
  maxTokens?: string;
  maxWallSeconds?: string;
  maxLlmCalls?: string;
  onExceed?: string;
}

/** Adds the budget flags to a command, with `prefix` (`budget-` on `svc run`). */
export function budgetOptions(cmd: Command, prefix = ''): Command {
  return cmd
    .option(`--${prefix}max-cost <usd>`, 'cap the cost in US dollars (from the llm_prices setting)')
    .option(`--${prefix}max-tokens <n>`, 'cap prompt + completion tokens')
    .option(`--${prefix}max-wall-seconds <n>`, 'cap the seconds since the run started')
    .option(`--${prefix}max-llm-calls <n>`, 'cap the LLM calls')
    .option(`--${prefix}on-exceed <policy>`, 'pause (wait for a raise) or fail');
}

/** The flags `svc run` got with the `budget-` prefix, unprefixed. */
export function runBudgetFlags(flags: object): BudgetFlags {
  const given = flags as Record<string, unknown>;
  const pick = (key: string) => (typeof given[key] === 'string' ? (given[key] as string) : undefined);
  return {
    maxCost: pick('budgetMaxCost'),
    maxTokens: pick('budgetMaxTokens'),
    maxWallSeconds: pick('budgetMaxWallSeconds'),
    maxLlmCalls: pick('budgetMaxLlmCalls'),
    onExceed: pick('budgetOnExceed'),
  };
}

/** The flags as a budget patch (`none` removes a cap); a usage error names a bad value. */
function patchOf(flags: BudgetFlags): Record<string, unknown> {
  const number = (value: string | undefined) =>
    value === undefined ? undefined : value === 'none' ? null : Number(value);
  const raw = {
    max_cost: number(flags.maxCost),
    max_tokens: number(flags.maxTokens),
    max_wall_seconds: number(flags.maxWallSeconds),
    max_llm_calls: number(flags.maxLlmCalls),
    on_exceed: flags.onExceed,
  };
  return Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
}

/** The budget a `svc run` asks for; undefined without budget flags (the project default applies). */
export function runBudget(flags: BudgetFlags): unknown {
  const patch = patchOf(flags);
  if (Object.keys(patch).length === 0) return undefined;
  const parsed = BudgetSchema.safeParse(patch);
  if (!parsed.success) throw new CliError(`bad budget: ${parsed.error.issues[0]?.message}`, EXIT.cancelledOrUsage);
  return parsed.data;
}

function budgetText(view: WorkflowBudget): string {
  const { budget, spend } = view;
  if (!budget)
    return `no budget; spent ${spend.llm_calls} LLM calls, ${spend.tokens} tokens, $${spend.cost.toFixed(4)}`;
  const line = (label: string, spent: string, cap: number | undefined) =>
    `  ${label.padEnd(12)} ${spent}${cap === undefined ? '' : ` / ${cap}`}`;
  return [
    `budget (on exceed: ${budget.on_exceed})${view.exceeded ? ' — stopped at the budget' : ''}`,
    line('cost (USD)', spend.cost.toFixed(4), budget.max_cost),
    line('tokens', String(spend.tokens), budget.max_tokens),
    line('wall (s)', String(spend.wall_seconds), budget.max_wall_seconds),
    line('LLM calls', String(spend.llm_calls), budget.max_llm_calls),
    ...(view.reached.length > 0 ? [`reached: ${view.reached.join(', ')}`] : []),
  ].join('\n');
}

export async function budgetShowCommand(ctx: Context, workflowId: string): Promise<number> {
  const view = await ctx.client().request(`${workflowPath(workflowId)}/budget`, WorkflowBudgetSchema);
  ctx.result(view, () => budgetText(view));
  return EXIT.ok;
}

/** Sets or raises a run's budget; a run waiting on the budget question resumes when no cap is reached. */
export async function budgetSetCommand(ctx: Context, workflowId: string, flags: BudgetFlags): Promise<number> {
  const parsed = BudgetPatchSchema.safeParse(patchOf(flags));
  if (!parsed.success) throw new CliError(`bad budget: ${parsed.error.issues[0]?.message}`, EXIT.cancelledOrUsage);
  if (Object.keys(parsed.data).length === 0)
    throw new CliError('give at least one --max-… or --on-exceed', EXIT.cancelledOrUsage);
  const view = await ctx.client().request(`${workflowPath(workflowId)}/budget`, WorkflowBudgetSchema, {
    method: 'PATCH',
    json: parsed.data,
  });
  ctx.result(view, () => budgetText(view));
  return EXIT.ok;
}
