import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SettingDefinition } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { ErrorNote } from '../../components/Feedback';
import { putSetting } from './api';
import { PriceEditor } from './PriceEditor';
import { rowsOf } from './prices';
import { settingSaveError } from './save-error';

/** One documented setting: its label, what it does, its default and value; administrators change it. */
export function SettingCard({
  definition,
  stored,
  canEdit,
}: {
  definition: SettingDefinition;
  /** the stored value, undefined while unset (the default applies) */
  stored: string | undefined;
  canEdit: boolean;
}) {
  const queryClient = useQueryClient();
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (value: string) => putSetting(definition.key, value),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.settings });
      setSaved(true);
    },
  });
  const id = `setting-${definition.key}`;
  const current = stored ?? definition.default;
  const onSave = (value: string) => {
    setSaved(false);
    save.mutate(value);
  };
  return (
    <section className="card setting" aria-labelledby={`${id}-label`}>
      <h2 id={`${id}-label`}>{definition.label}</h2>
      <p id={`${id}-help`} className="setting-help">
        {definition.description}
      </p>
      <p className="small muted">
        <code>{definition.key}</code> · {definition.type} · default <code>{definition.default}</code>
        {stored === undefined && ' (not set: the default applies)'}
      </p>
      {definition.key === 'llm_prices' ? (
        canEdit ? (
          <PriceEditor
            key={current}
            value={current}
            busy={save.isPending}
            error={settingSaveError(save.error, definition)}
            describedBy={`${id}-help`}
            onSave={onSave}
          />
        ) : (
          <PriceTable value={current} />
        )
      ) : canEdit ? (
        <ValueEditor
          key={current}
          id={id}
          definition={definition}
          value={current}
          busy={save.isPending}
          error={settingSaveError(save.error, definition)}
          onSave={onSave}
        />
      ) : (
        <p>
          Value: <code className="pre-wrap">{current}</code>
        </p>
      )}
      <p role="status" className="success small">
        {saved && !save.isPending && 'Saved.'}
      </p>
    </section>
  );
}

function ValueEditor({
  id,
  definition,
  value,
  busy,
  error,
  onSave,
}: {
  id: string;
  definition: SettingDefinition;
  value: string;
  busy: boolean;
  error: string | null;
  onSave(value: string): void;
}) {
  const [draft, setDraft] = useState(value);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSave(draft.trim() === '' ? definition.default : draft);
  };
  const common = {
    id: `${id}-input`,
    'aria-describedby': `${id}-help`,
  };
  return (
    <form onSubmit={submit} className="row">
      <label htmlFor={`${id}-input`} className="grow">
        Value
        {definition.type === 'json' ? (
          <textarea {...common} value={draft} onChange={(e) => setDraft(e.target.value)} rows={4} />
        ) : definition.type === 'boolean' ? (
          <select {...common} value={draft} onChange={(e) => setDraft(e.target.value)}>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        ) : (
          <input
            {...common}
            inputMode={definition.type === 'number' ? 'numeric' : undefined}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
          />
        )}
      </label>
      <button type="submit" className="primary" disabled={busy || draft === value}>
        Save
      </button>
      <ErrorNote>{error}</ErrorNote>
    </form>
  );
}

function PriceTable({ value }: { value: string }) {
  const rows = rowsOf(value);
  if (rows.length === 0) return <p className="muted">No prices set.</p>;
  return (
    <table className="table price-table">
      <caption className="visually-hidden">Prices in US dollars per million tokens</caption>
      <thead>
        <tr>
          <th scope="col">Model</th>
          <th scope="col">Prompt $ / 1M</th>
          <th scope="col">Completion $ / 1M</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.model}>
            <th scope="row">{row.model}</th>
            <td>{row.prompt}</td>
            <td>{row.completion}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
