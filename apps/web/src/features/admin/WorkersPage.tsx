import { useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { WorkerListItem } from '@svc/protocol';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { useDocumentTitle } from '../../lib/document-title';
import { useCurrentUser } from '../auth/user-context';
import { AdminTabs } from './AdminTabs';
import { QueueTable } from './QueueTable';
import { adminKeys, listWorkersWithRuns } from './api';
import { AdminStateBadge, WorkerActions } from './WorkerAdminState';
import { useNow, WorkerFacts } from './WorkerFacts';
import { WorkerRuns } from './WorkerRuns';
import './admin.css';

/** How often the list is re-read: workers report every few seconds, so "last seen" stays current. */
export const WORKERS_REFRESH_MS = 5_000;

/** Every registered worker: online or not, paused or not, capacity, labels, version, last seen, its runs. */
export function WorkersPage() {
  useDocumentTitle('Workers');
  const user = useCurrentUser();
  const workers = useQuery({
    queryKey: adminKeys.workers,
    queryFn: listWorkersWithRuns,
    refetchInterval: WORKERS_REFRESH_MS,
  });
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
          <WorkerCard key={worker.id} worker={worker} now={now} canManage={user.is_admin} />
        ))}
      </ul>
    </div>
  );
}

function WorkerCard({ worker, now, canManage }: { worker: WorkerListItem; now: number; canManage: boolean }) {
  const heading = useRef<HTMLHeadingElement>(null);
  return (
    <li className="card worker" aria-labelledby={`worker-${worker.id}`}>
      <div className="token-head">
        <h2 id={`worker-${worker.id}`} ref={heading} tabIndex={-1}>
          <Link to={`/admin/workers/${encodeURIComponent(worker.id)}`}>{worker.name}</Link>
        </h2>
        <span className="worker-badges">
          <AdminStateBadge worker={worker} />
          <span className={`token-state state-${worker.status}`}>{worker.status}</span>
        </span>
      </div>
      <WorkerFacts worker={worker} now={now} />
      {canManage && <WorkerActions worker={worker} focusAfter={() => heading.current} />}
      <h3 className="runs-heading">Current runs</h3>
      <WorkerRuns worker={worker} />
    </li>
  );
}
