import type { Budget, BudgetCap, BudgetPatch, Spend } from '@svc/protocol';

/** Each cap as the page shows it: its label and what it is spent against. */
export const CAP_ROWS: readonly { cap: BudgetCap; label: string; spent: keyof Spend; step: string }[] = [
  { cap: 'max_cost', label: 'Cost (USD)', spent: 'cost', step: '0.01' },
  { cap: 'max_tokens', label: 'Tokens', spent: 'tokens', step: '1' },
  { cap: 'max_wall_seconds', label: 'Wall time (s)', spent: 'wall_seconds', step: '1' },
  { cap: 'max_llm_calls', label: 'LLM calls', spent: 'llm_calls', step: '1' },
];

/** The form's text fields as a patch: an empty field removes its cap. */
export function patchFromFields(
  fields: Partial<Record<BudgetCap, string>>,
  onExceed: Budget['on_exceed'],
): BudgetPatch {
  const patch: BudgetPatch = { on_exceed: onExceed };
  for (const { cap } of CAP_ROWS) {
    const text = fields[cap]?.trim() ?? '';
    patch[cap] = text === '' ? null : Number(text);
  }
  return patch;
}

/** The form's starting text: the budget's caps. */
export function fieldsOf(budget: Budget | null): Partial<Record<BudgetCap, string>> {
  const fields: Partial<Record<BudgetCap, string>> = {};
  for (const { cap } of CAP_ROWS) if (budget?.[cap] !== undefined) fields[cap] = String(budget[cap]);
  return fields;
}
