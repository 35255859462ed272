import { useState } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import type { AuditEvent } from '@svc/protocol';
import { ErrorNote, Loading } from '../../components/Feedback';
import { inBackground } from '../../lib/background';
import { formatTime } from '../../lib/format';
import type { AuditSource } from './api';

const actorOf = (event: AuditEvent) =>
  event.actor.login ?? (event.actor.id ? `${event.actor.kind} ${event.actor.id}` : event.actor.kind);
const targetOf = (event: AuditEvent) => (event.target.type ? `${event.target.type} ${event.target.id ?? ''}` : '');

/** The audit log of a source, newest first, with an action-prefix filter, older pages and a JSON lines export. */
export function AuditLog({ source, showProject }: { source: AuditSource; showProject: boolean }) {
  const [action, setAction] = useState('');
  const events = useInfiniteQuery({
    queryKey: [...source.key, action],
    queryFn: ({ pageParam }) => source.page(pageParam, action),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const items = events.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <div className="stack audit-log">
      <div className="audit-tools">
        <label>
          Action starts with{' '}
          <input
            value={action}
            onChange={(e) => setAction(e.target.value.trim())}
            placeholder="e.g. token. or member."
            maxLength={100}
          />
        </label>{' '}
        <a href={`/svc/api${source.path}?format=jsonl`} download="audit.jsonl">
          Export as JSON lines
        </a>
      </div>
      {events.isPending && <Loading what="audit events" />}
      <ErrorNote error={events.error} />
      {events.isSuccess && items.length === 0 && <p className="muted">No audit events.</p>}
      {items.length > 0 && (
        <table aria-label="Audit events" className="table audit-table">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Action</th>
              <th scope="col">Actor</th>
              <th scope="col">Target</th>
              {showProject && <th scope="col">Project</th>}
              <th scope="col">Address</th>
              <th scope="col">Request</th>
            </tr>
          </thead>
          <tbody>
            {items.map((event) => (
              <tr key={event.id}>
                <td>
                  <time dateTime={event.at}>{formatTime(event.at)}</time>
                </td>
                <td>
                  <code>{event.action}</code>
                </td>
                <td>{actorOf(event)}</td>
                <td>{targetOf(event)}</td>
                {showProject && <td>{event.project_id ?? ''}</td>}
                <td title={event.user_agent ?? undefined}>{event.ip ?? ''}</td>
                <td>
                  <code>{event.request_id ?? ''}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {events.hasNextPage && (
        <button type="button" onClick={() => inBackground(events.fetchNextPage())} disabled={events.isFetchingNextPage}>
          Load older events
        </button>
      )}
    </div>
  );
}
