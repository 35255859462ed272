import { ErrorNote } from '../../components/Feedback';
import { formatClock, formatTimeOfDay } from './time';
import { webUrl, type ActivityEntry, type PullRequestEntry, type PushedEntry, type WorkflowAction } from './wire';

const VERBS: Record<WorkflowAction['action'], string> = {
  created: 'started the run',
  answered: 'answered',
  feedback: 'sent feedback',
  cancelled: 'cancelled the run',
  retried: 'retried the run',
  pause_requested: 'paused the run',
  resumed: 'resumed the run',
};

/**
 * Who did what to the run, and what happened to its repository, oldest first: starts, answers, feedback
 * (with the plan revision it made), cancels, retries, the branch's pushes and the pull request opened.
 */
export function ActivityFeed({ entries, error }: { entries: readonly ActivityEntry[]; error: unknown }) {
  return (
    <section aria-labelledby="activity-heading" className="card run-activity">
      <h2 id="activity-heading">Activity</h2>
      <ErrorNote error={error} />
      {entries.length === 0 && !error && <p className="muted empty">Nobody has acted on this run yet.</p>}
      <ol className="activity" aria-labelledby="activity-heading">
        {entries.map((entry) => (
          <li
            key={entry.seq}
            data-seq={entry.seq}
            data-event={entry.kind}
            data-action={entry.kind === 'workflow_action' ? entry.action : undefined}
          >
            <time dateTime={entry.ts} title={formatClock(entry.ts)}>
              {formatTimeOfDay(entry.ts)}
            </time>{' '}
            {entry.kind === 'workflow_action' ? (
              <ActionLine action={entry} />
            ) : entry.kind === 'repository_pushed' ? (
              <PushLine push={entry} />
            ) : (
              <PullRequestLine pr={entry} />
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function ActionLine({ action }: { action: WorkflowAction }) {
  return (
    <>
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
    </>
  );
}

const commitCount = (n: number) => (n === 0 ? 'no new commits' : n === 1 ? '1 commit' : `${n} commits`);

/** "Pushed branch svc/12-x with 3 commits", or "Push of svc/12-x failed: <why>". */
function PushLine({ push }: { push: PushedEntry }) {
  if (!push.pushed)
    return (
      <>
        Push of <code>{push.branch}</code> failed{push.error ? ':' : ''}
        {push.error && <blockquote className="activity-message">{push.error}</blockquote>}
      </>
    );
  return (
    <>
      Pushed branch <code>{push.branch}</code>
      {push.commits !== null ? ` with ${commitCount(push.commits)}` : ''}
    </>
  );
}

/** "Opened pull request #N", a link only when its URL is a web address. */
function PullRequestLine({ pr }: { pr: PullRequestEntry }) {
  const href = webUrl(pr.url);
  const label = `pull request #${pr.number}`;
  return (
    <>
      Opened{' '}
      {href ? (
        <a href={href} target="_blank" rel="noopener noreferrer">
          {label}
        </a>
      ) : (
        label
      )}{' '}
      from <code>{pr.branch}</code> into <code>{pr.base}</code>
    </>
  );
}
