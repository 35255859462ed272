import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { WorkerListItem } from '@svc/protocol';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { StatusBadge } from '../../components/StatusBadge';
import { useDocumentTitle } from '../../lib/document-title';
import { AdminTabs } from './AdminTabs';
import { QueueTable } from './QueueTable';
import { adminKeys, listWorkersWithRuns } from './api';
import { formatAgo, formatMoment } from './time';
import './admin.css';

/** How often the list is re-read: workers report every few seconds, so "last seen" stays current. */
const REFRESH_MS = 5_000;

/** Every registered worker: online or not, capacity, labels, version, last seen, the runs it holds. */
export function WorkersPage() {
  useDocumentTitle('Workers');
  const workers = useQuery({ queryKey: adminKeys.workers, queryFn: listWorkersWithRuns, refetchInterval: REFRESH_MS });
  const now = useNow(workers.dataUpdatedAt);
  return (
    <div className="admin-page">
      <header className="page-head">
        <h1>Workers</h1>
      </header>
      <AdminTabs />
      <QueueTable />
      {workers.isPending && <Loading what="workers" />}
      <ErrorNote error={workers.error} />
      {workers.isSuccess && workers.data.length === 0 && (
        <Empty>No worker has registered yet. Start one with a worker token (see the README).</Empty>
      )}
      <ul className="worker-list">
        {workers.data?.map((worker) => (
          <WorkerCard key={worker.id} worker={worker} now={now} />
        ))}
      </ul>
    </div>
  );
}

/** The clock "last seen" is measured against: the last refresh, ticking each second in between. */
function useNow(refreshedAt: number): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [refreshedAt]);
  return now;
}

function WorkerCard({ worker, now }: { worker: WorkerListItem; now: number }) {
  const runs = worker.current_runs ?? [];
  const hidden = worker.active - runs.length;
  return (
    <li className="card worker" aria-labelledby={`worker-${worker.id}`}>
      <div className="token-head">
        <h2 id={`worker-${worker.id}`}>{worker.name}</h2>
        <span className={`token-state state-${worker.status}`}>{worker.status}</span>
      </div>
      <dl className="facts">
        <div>
          <dt>Capacity</dt>
          <dd>
            {worker.active} of {worker.capacity} busy
          </dd>
        </div>
        <div>
          <dt>Labels</dt>
          <dd>
            {worker.labels.length === 0 ? (
              <span className="muted">none</span>
            ) : (
              worker.labels.map((label) => (
                <span key={label} className="label-chip">
                  {label}
                </span>
              ))
            )}
          </dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd>{worker.version || <span className="muted">unknown</span>}</dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>
            {worker.last_seen_at ? (
              <>
                <time dateTime={worker.last_seen_at}>{formatMoment(worker.last_seen_at)}</time>{' '}
                <span className="muted">({formatAgo(worker.last_seen_at, now)})</span>
              </>
            ) : (
              'never'
            )}
          </dd>
        </div>
      </dl>
      <h3 className="runs-heading">Current runs</h3>
      {runs.length === 0 && hidden <= 0 ? (
        <p className="muted small">Idle.</p>
      ) : (
        <ul className="worker-runs">
          {runs.map((run) => (
            <li key={run.workflow_id}>
              <Link
                to={`/projects/${encodeURIComponent(run.project_id)}/workflows/${encodeURIComponent(run.workflow_id)}`}
              >
                #{run.number} {run.title}
              </Link>{' '}
              <StatusBadge status={run.status} />
            </li>
          ))}
          {hidden > 0 && <li className="muted small">{hidden} more in projects you are not a member of</li>}
        </ul>
      )}
    </li>
  );
}
