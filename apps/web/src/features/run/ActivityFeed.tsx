import { ErrorNote } from '../../components/Feedback';
import { formatClock, formatTimeOfDay } from './time';
import type { WorkflowAction } from './wire';

const VERBS: Record<WorkflowAction['action'], string> = {
  created: 'started the run',
  answered: 'answered',
  feedback: 'sent feedback',
  cancelled: 'cancelled the run',
  retried: 'retried the run',
  pause_requested: 'paused the run',
  resumed: 'resumed the run',
};

/** Who did what to the run, oldest first: starts, answers, feedback (with the plan revision it made), cancels, retries. */
export function ActivityFeed({ actions, error }: { actions: readonly WorkflowAction[]; error: unknown }) {
  return (
    <section aria-labelledby="activity-heading" className="card run-activity">
      <h2 id="activity-heading">Activity</h2>
      <ErrorNote error={error} />
      {actions.length === 0 && !error && <p className="muted empty">Nobody has acted on this run yet.</p>}
      <ol className="activity">
        {actions.map((action) => (
          <li key={action.seq} data-action={action.action} data-seq={action.seq}>
            <time dateTime={action.ts} title={formatClock(action.ts)}>
              {formatTimeOfDay(action.ts)}
            </time>{' '}
            <strong className="activity-actor" title={action.actor.name ?? undefined}>
              {action.actor.login}
            </strong>{' '}
            {VERBS[action.action]}
            {action.action === 'feedback' && (
              <span className="revision-tag" data-testid="feedback-revision">
                {' '}
                (plan revision {action.revision})
              </span>
            )}
            {action.message ? ':' : ''}
            {action.message && <blockquote className="activity-message">{action.message}</blockquote>}
          </li>
        ))}
      </ol>
    </section>
  );
}
