import type { WorkflowStatus } from '@svc/protocol';
import { formatTimeOfDay } from '../run/time';
import type { WorkflowAction } from '../run/wire';

/** Why a question with a draft closed: who answered it and what (the latest answer), or that the run was cancelled. */
export function AnsweredElsewhere({ status, actions }: { status: WorkflowStatus; actions: readonly WorkflowAction[] }) {
  const answeredBy = [...actions].reverse().find((a) => a.action === 'answered') ?? null;
  const cancelled = status === 'cancelled';
  return (
    <div className="answered-elsewhere" role="status" data-testid="answered-elsewhere">
      {answeredBy ? (
        <p>
          <strong>{answeredBy.actor.login}</strong> answered this question at{' '}
          <time dateTime={answeredBy.ts}>{formatTimeOfDay(answeredBy.ts)}</time>
          {answeredBy.message ? ':' : '.'}
        </p>
      ) : (
        <p>This question is no longer open{cancelled ? ': the run was cancelled' : ''}.</p>
      )}
      {answeredBy?.message && <blockquote className="activity-message">{answeredBy.message}</blockquote>}
      <p>Your draft is kept below{cancelled ? '' : ': send it as feedback, or discard it'}.</p>
    </div>
  );
}
