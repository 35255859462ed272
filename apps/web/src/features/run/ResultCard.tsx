import { AppLink, appLinkOf } from './AppLink';
import { ReportBody } from './ReportBody';
import type { Workflow } from '@svc/protocol';

/** What a completed run produced, first on its page: the app to open and the report. */
export function ResultCard({ workflow }: { workflow: Workflow }) {
  const link = appLinkOf(workflow);
  return (
    <section aria-labelledby="result-heading" className="card run-result">
      <h2 id="result-heading">Result</h2>
      {link && <AppLink href={link} />}
      <ReportBody workflowId={workflow.id} />
    </section>
  );
}
