import { AppLink, appLinkOf } from '../run/AppLink';
import { ReportBody } from '../run/ReportBody';
import type { Workflow } from '@svc/protocol';
import { PullRequestLink } from '../forge/PullRequestLink';

/** The report tab: the built app's link and the rendered report (the same as a completed run's result card). */
export function ReportView({ workflow }: { workflow: Workflow }) {
  const link = appLinkOf(workflow);
  return (
    <div className="report">
      {link && <AppLink href={link} />}
      <PullRequestLink workflowId={workflow.id} />
      <ReportBody workflowId={workflow.id} />
    </div>
  );
}
