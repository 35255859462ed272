import { LlmPricesSchema, type LlmPrices } from '@svc/protocol';

/** One row of the price editor, as typed (numbers stay text until saved). */
export interface PriceRow {
  model: string;
  prompt: string;
  completion: string;
}

/** The stored `llm_prices` JSON as editor rows (none when it is unset or unreadable). */
export function rowsOf(value: string): PriceRow[] {
  let parsed: LlmPrices;
  try {
    parsed = LlmPricesSchema.parse(JSON.parse(value));
  } catch {
    return [];
  }
  return Object.entries(parsed).map(([model, price]) => ({
    model,
    prompt: String(price.prompt_per_million),
    completion: String(price.completion_per_million),
  }));
}

/** The rows as the setting's JSON, or the first problem a person can fix. */
export function pricesOf(rows: readonly PriceRow[]): { json: string } | { problem: string } {
  const prices: LlmPrices = {};
  const seen = new Set<string>();
  for (const [i, row] of rows.entries()) {
    const model = row.model.trim();
    const where = `Row ${i + 1}`;
    if (!model) return { problem: `${where}: give the model's name.` };
    if (seen.has(model)) return { problem: `${where}: ${model} is listed twice.` };
    seen.add(model);
    const prompt = Number(row.prompt);
    const completion = Number(row.completion);
    if (row.prompt.trim() === '' || !Number.isFinite(prompt) || prompt < 0)
      return { problem: `${where}: the prompt price must be a number, 0 or more.` };
    if (row.completion.trim() === '' || !Number.isFinite(completion) || completion < 0)
      return { problem: `${where}: the completion price must be a number, 0 or more.` };
    prices[model] = { prompt_per_million: prompt, completion_per_million: completion };
  }
  return { json: JSON.stringify(prices) };
}
