import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ErrorNote, Loading } from '../../components/Feedback';
import { inBackground } from '../../lib/background';
import { formatTime } from '../../lib/format';
import type { SecretsApi } from './api';
import type { SecretEvent } from '@svc/protocol';

/** The audit trail of a scope's secrets, latest first: who changed which, and which runs received it. */
export function SecretEvents({ scope, projectId }: { scope: SecretsApi; projectId?: string }) {
  return (
    <details className="secret-events">
      <summary>Secret events</summary>
      <EventList scope={scope} projectId={projectId} />
    </details>
  );
}

/** Mounted only while the events are unfolded, so they are read when someone looks. */
function EventList({ scope, projectId }: { scope: SecretsApi; projectId?: string }) {
  const events = useInfiniteQuery({
    queryKey: [...scope.key, 'events'],
    queryFn: ({ pageParam }) => scope.events(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  if (events.isPending) return <Loading what="secret events" />;
  if (events.isError) return <ErrorNote error={events.error} />;
  const items = events.data.pages.flatMap((page) => page.items);
  return (
    <>
      {items.length === 0 ? (
        <p className="muted">No secret events yet.</p>
      ) : (
        <ul aria-label="Secret events" className="secret-event-list">
          {items.map((event) => (
            <li key={event.id}>
              <time dateTime={event.at}>{formatTime(event.at)}</time> <EventText event={event} projectId={projectId} />
            </li>
          ))}
        </ul>
      )}
      {events.hasNextPage && (
        <button type="button" onClick={() => inBackground(events.fetchNextPage())} disabled={events.isFetchingNextPage}>
          Load older events
        </button>
      )}
    </>
  );
}

function EventText({ event, projectId }: { event: SecretEvent; projectId?: string }) {
  const name = <code>{event.name}</code>;
  const scope = event.scope === 'instance' ? ' (instance)' : '';
  if (event.kind === 'used') {
    const run =
      event.workflow_id && projectId ? (
        <Link to={`/projects/${encodeURIComponent(projectId)}/workflows/${encodeURIComponent(event.workflow_id)}`}>
          run {event.workflow_id}
        </Link>
      ) : (
        <>run {event.workflow_id ?? 'unknown'}</>
      );
    return (
      <>
        {name}
        {scope} given to {run}
      </>
    );
  }
  return (
    <>
      {name}
      {scope} {event.kind} by {event.actor?.name ?? 'someone unknown'}
    </>
  );
}
