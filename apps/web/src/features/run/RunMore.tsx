import type { Workflow } from '@svc/protocol';
import { FeedbackBox } from '../workflow/FeedbackBox';
import { ActivityFeed } from './ActivityFeed';
import type { ActivityEntry } from './wire';

/** The run page's second column: the requirement, the feedback box, and who did what. */
export function RunMore({
  workflow,
  activity,
  activityError,
}: {
  workflow: Workflow;
  /** the activity list: actions and repository events, in seq order */
  activity: readonly ActivityEntry[];
  activityError: unknown;
}) {
  // the server takes feedback only when no question is open and the workflow was not cancelled or paused
  const takesFeedback =
    workflow.status !== 'waiting_user' && workflow.status !== 'cancelled' && workflow.status !== 'paused';
  return (
    <div className="run-side run-more">
      <section aria-labelledby="requirement-heading" className="card">
        <h2 id="requirement-heading">Requirement</h2>
        <div className="requirement" data-testid="requirement">
          {workflow.requirement}
        </div>
        {workflow.template && <p className="muted small">Template: {workflow.template}</p>}
      </section>
      {takesFeedback && <FeedbackBox workflow={workflow} />}
      <ActivityFeed entries={activity} error={activityError} />
    </div>
  );
}
