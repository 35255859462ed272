import { useState, type FormEvent } from 'react';
import { ErrorNote } from '../../components/Feedback';
import { pricesOf, rowsOf, type PriceRow } from './prices';

const PRICE_FIELDS = [
  { key: 'prompt', label: 'Prompt' },
  { key: 'completion', label: 'Completion' },
] as const;

/** `llm_prices` as rows of model, prompt and completion price (US$ per million tokens). */
export function PriceEditor({
  value,
  busy,
  error,
  describedBy,
  onSave,
}: {
  value: string;
  busy: boolean;
  error: unknown;
  describedBy: string;
  onSave(json: string): void;
}) {
  const [rows, setRows] = useState<PriceRow[]>(() => rowsOf(value));
  const [problem, setProblem] = useState<string | null>(null);
  const change = (index: number, patch: Partial<PriceRow>) =>
    setRows((all) => all.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = pricesOf(rows);
    if ('problem' in result) {
      setProblem(result.problem);
      return;
    }
    setProblem(null);
    onSave(result.json);
  };
  return (
    <form onSubmit={submit} className="price-editor" aria-label="LLM prices" aria-describedby={describedBy}>
      {rows.length === 0 && <p className="muted small">No prices yet: runs show tokens but no cost.</p>}
      <ul className="price-rows">
        {rows.map((row, i) => (
          <li key={i} className="price-row">
            <label>
              Model
              <input
                value={row.model}
                onChange={(e) => change(i, { model: e.target.value })}
                placeholder="e.g. gpt-4o-mini"
                aria-label={`Model of row ${i + 1}`}
              />
            </label>
            {PRICE_FIELDS.map(({ key, label }) => (
              <label key={key}>
                {label} $ / 1M tokens
                <input
                  inputMode="decimal"
                  value={row[key]}
                  onChange={(e) => change(i, { [key]: e.target.value })}
                  aria-label={`${label} price of row ${i + 1}, US dollars per million tokens`}
                />
              </label>
            ))}
            <button
              type="button"
              className="small danger"
              onClick={() => setRows((all) => all.filter((_, at) => at !== i))}
              aria-label={`Remove row ${i + 1}${row.model ? ` (${row.model})` : ''}`}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <div className="row">
        <button type="button" onClick={() => setRows((all) => [...all, { model: '', prompt: '', completion: '' }])}>
          Add model
        </button>
        <button type="submit" className="primary" disabled={busy}>
          Save prices
        </button>
      </div>
      <ErrorNote>{problem}</ErrorNote>
      <ErrorNote error={error} />
    </form>
  );
}
