import { useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { WorkerListItem } from '@svc/protocol';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { useDocumentTitle } from '../../lib/document-title';
import { useCurrentUser } from '../auth/user-context';
import { useProjects } from '../projects/hooks';
import { AdminTabs } from './AdminTabs';
import { adminKeys, listWorkersWithRuns } from './api';
import { AdminStateBadge, WorkerActions } from './WorkerAdminState';
import { useNow, WorkerFacts } from './WorkerFacts';
import { WorkerRecentRuns } from './WorkerRecentRuns';
import { WorkerRuns } from './WorkerRuns';
import { WORKERS_REFRESH_MS } from './WorkersPage';
import './admin.css';

/**
 * `/admin/workers/:workerId`: one worker's state, capacity, the runs it holds now (read from the workers
 * list, so it shares the list's cache and refresh) and the runs it took lately (`GET /workers/{id}/runs`).
 */
export function WorkerDetailPage({ workerId }: { workerId: string }) {
  const workers = useQuery({
    queryKey: adminKeys.workers,
    queryFn: listWorkersWithRuns,
    refetchInterval: WORKERS_REFRESH_MS,
  });
  const worker = workers.data?.find((w) => w.id === workerId);
  useDocumentTitle(worker ? `${worker.name} · Workers` : 'Worker');
  const now = useNow(workers.dataUpdatedAt);
  return (
    <div className="admin-page">
      <AdminTabs />
      <p>
        <Link to="/admin/workers">All workers</Link>
      </p>
      {workers.isPending && <Loading what="the worker" />}
      <ErrorNote error={workers.error} />
      {workers.isSuccess && !worker && <Empty>No worker with this id is registered.</Empty>}
      {worker && <WorkerDetail worker={worker} now={now} />}
    </div>
  );
}

function WorkerDetail({ worker, now }: { worker: WorkerListItem; now: number }) {
  const user = useCurrentUser();
  const heading = useRef<HTMLHeadingElement>(null);
  const names = new Map(useProjects().data?.map((p) => [p.id, p.name]));
  const projects = [...new Set((worker.current_runs ?? []).map((run) => run.project_id))];
  return (
    <>
      <header className="page-head token-head">
        <h1 ref={heading} tabIndex={-1}>
          {worker.name}
        </h1>
        <span className="worker-badges">
          <AdminStateBadge worker={worker} />
          <span className={`token-state state-${worker.status}`}>{worker.status}</span>
        </span>
      </header>
      <section className="card" aria-labelledby="worker-state-heading">
        <h2 id="worker-state-heading">State</h2>
        <p className="muted small">{STATE_HELP[worker.admin_state ?? 'active']}</p>
        <WorkerFacts worker={worker} now={now} />
        {user.is_admin && <WorkerActions worker={worker} focusAfter={() => heading.current} />}
      </section>
      <section className="card" aria-labelledby="worker-runs-heading">
        <h2 id="worker-runs-heading">Runs it holds now</h2>
        <WorkerRuns worker={worker} />
        {projects.length > 0 && (
          <p className="muted small">
            Its runs in a project&apos;s run list:{' '}
            {projects.map((projectId, index) => (
              <span key={projectId}>
                {index > 0 && ', '}
                <Link to={`/projects/${encodeURIComponent(projectId)}?worker=${encodeURIComponent(worker.id)}`}>
                  {names.get(projectId) ?? projectId}
                </Link>
              </span>
            ))}
          </p>
        )}
      </section>
      <section className="card" aria-labelledby="worker-recent-heading">
        <h2 id="worker-recent-heading">Recent runs</h2>
        <WorkerRecentRuns workerId={worker.id} />
      </section>
    </>
  );
}

const STATE_HELP = {
  active: 'Takes new runs.',
  paused: 'Paused by an administrator: takes no new run and goes on with the ones it has.',
  draining: 'Draining: takes no new run; shown drained once its runs have finished.',
  drained: 'Drained: holds no unfinished run and takes no new one. It can be stopped.',
} as const;
