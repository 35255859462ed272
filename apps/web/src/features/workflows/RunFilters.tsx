import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { WorkflowStatus } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { listMembers } from '../projects/api';
import { listWorkers, type RunFilter } from './api';
import type { FilterChange } from './WorkflowList';

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
  projectId: string;
  filter: RunFilter;
  onChange(next: FilterChange): void;
}

/** Search box, status, author, worker and created-between filters of the run list; all answered by the server. */
export function RunFilters({ projectId, filter, onChange }: Props) {
  const { q } = filter;
  const status = filter.statuses.join(',');
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
      <PeopleAndWorkers projectId={projectId} filter={filter} onChange={onChange} />
      <label>
        Created from
        <input type="date" value={filter.since} onChange={(e) => onChange({ since: e.target.value })} />
      </label>
      <label>
        Created to
        <input type="date" value={filter.until} onChange={(e) => onChange({ until: e.target.value })} />
      </label>
    </form>
  );
}

/** Author (the project's members) and worker (every registered one) choices. */
function PeopleAndWorkers({ projectId, filter, onChange }: Props) {
  const members = useQuery({ queryKey: queryKeys.members(projectId), queryFn: () => listMembers(projectId) });
  const workers = useQuery({ queryKey: queryKeys.workers, queryFn: listWorkers });
  return (
    <>
      <label>
        Author
        <select value={filter.author} onChange={(e) => onChange({ author: e.target.value })}>
          <option value="">Anyone</option>
          {members.data?.map((m) => (
            <option key={m.user_id} value={m.login}>
              {m.name ? `${m.name} (${m.login})` : m.login}
            </option>
          ))}
          {filter.author && !members.data?.some((m) => m.login === filter.author) && (
            <option value={filter.author}>{filter.author}</option>
          )}
        </select>
      </label>
      <label>
        Ran on
        <select value={filter.worker} onChange={(e) => onChange({ worker: e.target.value })}>
          <option value="">Any worker</option>
          {workers.data?.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
          {filter.worker && !workers.data?.some((w) => w.id === filter.worker) && (
            <option value={filter.worker}>{filter.worker}</option>
          )}
        </select>
      </label>
    </>
  );
}
