import { Link } from 'react-router';
import type { WorkerListItem } from '@svc/protocol';
import { StatusBadge } from '../../components/StatusBadge';

/** The runs a worker holds now, linked to their run pages; those in projects the reader cannot see, counted. */
export function WorkerRuns({ worker }: { worker: WorkerListItem }) {
  const runs = worker.current_runs ?? [];
  const hidden = worker.active - runs.length;
  if (runs.length === 0 && hidden <= 0) return <p className="muted small">Idle.</p>;
  return (
    <ul className="worker-runs">
      {runs.map((run) => (
        <li key={run.workflow_id}>
          <Link to={`/projects/${encodeURIComponent(run.project_id)}/workflows/${encodeURIComponent(run.workflow_id)}`}>
            #{run.number} {run.title}
          </Link>{' '}
          <StatusBadge status={run.status} />
        </li>
      ))}
      {hidden > 0 && <li className="muted small">{hidden} more in projects you are not a member of</li>}
    </ul>
  );
}
