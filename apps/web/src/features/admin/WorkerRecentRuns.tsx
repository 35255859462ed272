import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { StatusBadge } from '../../components/StatusBadge';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { formatDuration, formatTime } from '../../lib/format';
import { adminKeys, listWorkerRecentRuns, RECENT_RUNS_SHOWN } from './api';
import { WORKERS_REFRESH_MS } from './WorkersPage';

/**
 * The runs a worker last took, held now or finished, newest first (decision 0078): each linked to its
 * run page with its project, status and how long it took.
 */
export function WorkerRecentRuns({ workerId }: { workerId: string }) {
  const runs = useQuery({
    queryKey: adminKeys.workerRuns(workerId),
    queryFn: () => listWorkerRecentRuns(workerId),
    refetchInterval: WORKERS_REFRESH_MS,
  });
  if (runs.isPending) return <Loading what="recent runs" />;
  if (runs.isError) return <ErrorNote error={runs.error} />;
  const { items, next_cursor } = runs.data;
  if (items.length === 0) return <Empty>No runs yet: this worker has not taken a run in a project you can see.</Empty>;
  return (
    <>
      <ul className="worker-runs recent-runs">
        {items.map((run) => (
          <li key={run.workflow_id}>
            <Link
              to={`/projects/${encodeURIComponent(run.project_id)}/workflows/${encodeURIComponent(run.workflow_id)}`}
            >
              #{run.number} {run.title}
            </Link>{' '}
            <StatusBadge status={run.status} />{' '}
            <span className="muted small">
              {run.project_name}
              {run.duration_ms !== null && ` · took ${formatDuration(run.duration_ms)}`}
              {run.finished_at && ` · finished ${formatTime(run.finished_at)}`}
            </span>
          </li>
        ))}
      </ul>
      {next_cursor && <p className="muted small">The latest {RECENT_RUNS_SHOWN} runs are shown.</p>}
    </>
  );
}
