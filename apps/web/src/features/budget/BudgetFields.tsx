import type { Budget, BudgetCap } from '@svc/protocol';
import { CAP_ROWS } from './caps';

export interface BudgetFieldsProps {
  idPrefix: string;
  fields: Partial<Record<BudgetCap, string>>;
  onExceed: Budget['on_exceed'];
  onChange(fields: Partial<Record<BudgetCap, string>>, onExceed: Budget['on_exceed']): void;
}

/** One number field per cap (empty: no cap) and the policy. */
export function BudgetFields({ idPrefix, fields, onExceed, onChange }: BudgetFieldsProps) {
  return (
    <>
      {CAP_ROWS.map(({ cap, label, step }) => (
        <label key={cap} htmlFor={`${idPrefix}-${cap}`}>
          {label}
          <input
            id={`${idPrefix}-${cap}`}
            type="number"
            min="0"
            step={step}
            value={fields[cap] ?? ''}
            placeholder="no cap"
            onChange={(e) => onChange({ ...fields, [cap]: e.target.value }, onExceed)}
          />
        </label>
      ))}
      <label htmlFor={`${idPrefix}-policy`}>
        On exceed
        <select
          id={`${idPrefix}-policy`}
          value={onExceed}
          onChange={(e) => onChange(fields, e.target.value === 'fail' ? 'fail' : 'pause')}
        >
          <option value="pause">pause and ask</option>
          <option value="fail">fail the run</option>
        </select>
      </label>
    </>
  );
}
