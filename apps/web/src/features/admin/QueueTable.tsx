import { useQuery } from '@tanstack/react-query';
import { QueueDepthSchema } from '@svc/protocol';
import { ApiError, apiJson } from '../../lib/api';
import { ErrorNote } from '../../components/Feedback';
import { adminKeys } from './api';

const REFRESH_MS = 5_000;
const getQueue = () => apiJson('/admin/queue', QueueDepthSchema);

/**
 * The queued runs by required label set (`GET /admin/queue`, administrators): what an autoscaler reads.
 * Nothing for people who may not read it.
 */
export function QueueTable() {
  const queue = useQuery({ queryKey: adminKeys.queue, queryFn: getQueue, refetchInterval: REFRESH_MS, retry: false });
  if (queue.error instanceof ApiError && queue.error.code === 'forbidden') return null;
  return (
    <section className="card queue" aria-labelledby="queue-heading">
      <h2 id="queue-heading">Queue</h2>
      <ErrorNote error={queue.error} />
      {queue.data && queue.data.groups.length === 0 && <p className="muted">No run waits for a worker.</p>}
      {queue.data && queue.data.groups.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Requires</th>
              <th scope="col">Waiting runs</th>
              <th scope="col">Oldest wait</th>
              <th scope="col">Matching online workers</th>
            </tr>
          </thead>
          <tbody>
            {queue.data.groups.map((group) => (
              <tr key={group.requires.join(',')}>
                <td>{group.requires.length ? group.requires.join(', ') : 'any worker'}</td>
                <td>{group.depth}</td>
                <td>{group.oldest_wait_seconds} s</td>
                <td className={group.matching_online_workers === 0 ? 'queue-unmatched' : undefined}>
                  {group.matching_online_workers}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
