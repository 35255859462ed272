import type { WorkflowListItem } from '@svc/protocol';
import { Link } from 'react-router';
import { elapsedMs, formatDuration, formatTime, previewLines, shorten } from '../../lib/format';
import { StatusBadge } from '../../components/StatusBadge';
import { RERUN_PARAM } from './CreateWorkflowForm';

/** One run in the project's list: number, title, status, progress, duration, start time, re-run. */
export function RunItem({ projectId, run, now }: { projectId: string; run: WorkflowListItem; now: number }) {
  const duration = elapsedMs(run.started_at, run.finished_at, now);
  const label = `#${run.number}`;
  return (
    <li className="workflow-item" data-workflow-id={run.id} data-status={run.status}>
      <div className="workflow-item-head">
        <Link
          to={`/projects/${encodeURIComponent(projectId)}/workflows/${encodeURIComponent(run.id)}`}
          className="workflow-link"
        >
          <span className="run-number">{label}</span>{' '}
          <span className="workflow-title" title={run.title}>
            {shorten(run.title || 'Untitled workflow', 100)}
          </span>
        </Link>
        <StatusBadge status={run.status} />
      </div>
      <p className="workflow-preview">{previewLines(run.requirement, 2, 200)}</p>
      <RunReason run={run} />
      <p className="run-meta small">
        {run.progress && run.progress.total > 0 && <Progress done={run.progress.done} total={run.progress.total} />}
        <span className="run-duration" data-testid="run-duration">
          {duration === null
            ? 'Not started yet'
            : run.finished_at
              ? `Took ${formatDuration(duration)}`
              : `${formatDuration(duration)} so far`}
        </span>
        <RunWho run={run} />
        <span className="run-time">
          {run.started_at ? 'Started ' : 'Created '}
          <time dateTime={run.started_at ?? run.created_at}>{formatTime(run.started_at ?? run.created_at)}</time>
        </span>
        <Link to={`?${RERUN_PARAM}=${encodeURIComponent(run.id)}`} className="run-rerun">
          Re-run<span className="visually-hidden"> {label}</span>
        </Link>
      </p>
    </li>
  );
}

/** The question a waiting run asks, or why a failed run failed. */
function RunReason({ run }: { run: WorkflowListItem }) {
  if (run.status === 'waiting_user' && run.question)
    return (
      <p className="run-reason small" data-testid="run-question">
        Asks: {shorten(run.question, 200)}
      </p>
    );
  if (run.status === 'failed' && run.error)
    return (
      <p className="run-reason small" data-testid="run-error">
        Failed: {shorten(run.error, 200)}
      </p>
    );
  return null;
}

/** Who started the run and the worker that has it. */
function RunWho({ run }: { run: WorkflowListItem }) {
  return (
    <>
      <span className="run-author" data-testid="run-author">
        {authorText(run.author)}
      </span>
      {run.worker_name && (
        <span className="run-worker" data-testid="run-worker">
          on {run.worker_name}
        </span>
      )}
    </>
  );
}

/** "Started by ann", or "scheduled by ann" / "triggered by ann" for a schedule's or trigger's run. */
function authorText(author: WorkflowListItem['author']): string {
  const who = author.name ?? author.login ?? 'a removed user';
  return `${author.kind === 'schedule' ? 'Scheduled' : author.kind === 'trigger' ? 'Triggered' : 'Started'} by ${who}`;
}

function Progress({ done, total }: { done: number; total: number }) {
  const percent = Math.min(100, Math.round((done / total) * 100));
  return (
    <span className="run-progress" data-testid="run-progress">
      <span className="progress-bar" aria-hidden="true">
        <span style={{ width: `${percent}%` }} />
      </span>
      {done}/{total} steps
    </span>
  );
}
