import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { WorkflowStatus } from '@svc/protocol';

/** The status filter's choices; each is a comma list of wire statuses for `?status=`. */
export const STATUS_FILTERS: readonly { label: string; statuses: readonly WorkflowStatus[] }[] = [
  { label: 'All statuses', statuses: [] },
  { label: 'Active', statuses: ['pending', 'planning', 'running', 'waiting_user', 'paused'] },
  { label: 'Waiting for input', statuses: ['waiting_user'] },
  { label: 'Paused', statuses: ['paused'] },
  { label: 'Running', statuses: ['planning', 'running'] },
  { label: 'Completed', statuses: ['completed'] },
  { label: 'Failed', statuses: ['failed'] },
  { label: 'Cancelled', statuses: ['cancelled'] },
];

/** Typing settles for this long before the list is searched again. */
export const SEARCH_DELAY_MS = 300;

interface Props {
  status: string;
  q: string;
  onChange(next: { status?: string; q?: string }): void;
}

/** Status filter and search box of the run list; both answered by the server. */
export function RunFilters({ status, q, onChange }: Props) {
  const [text, setText] = useState(q);
  const sent = useRef(q);
  // The URL may change from elsewhere (back button, "Clear the filters"); our own search must not
  // overwrite what was typed since.
  useEffect(() => {
    if (q !== sent.current) setText(q);
    sent.current = q;
  }, [q]);
  useEffect(() => {
    if (text === sent.current) return;
    const timer = setTimeout(() => {
      sent.current = text;
      onChange({ q: text });
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, onChange]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    sent.current = text;
    onChange({ q: text });
  };
  const known = STATUS_FILTERS.some((f) => f.statuses.join(',') === status);
  return (
    <form role="search" aria-label="Filter workflows" className="row run-filters" onSubmit={submit}>
      <label className="grow">
        Search
        <input
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="Title or requirement"
          maxLength={200}
        />
      </label>
      <label>
        Status
        <select value={known ? status : ''} onChange={(e) => onChange({ status: e.target.value })}>
          {STATUS_FILTERS.map((f) => (
            <option key={f.label} value={f.statuses.join(',')}>
              {f.label}
            </option>
          ))}
        </select>
      </label>
    </form>
  );
}
