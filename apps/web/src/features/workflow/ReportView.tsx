import { useQuery } from '@tanstack/react-query';
import type { Workflow } from '@svc/protocol';
import { isNotFound } from '../../lib/api';
import { queryKeys } from '../../lib/query-keys';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { getReportMarkdown, reportHtmlUrl } from './api';

/** The report (report.md rendered by the server, shown sandboxed: no scripts, no same-origin access). */
export function ReportView({ workflow }: { workflow: Workflow }) {
  const report = useQuery({
    queryKey: queryKeys.report(workflow.id),
    queryFn: () => getReportMarkdown(workflow.id),
    retry: false,
  });
  return (
    <div className="report">
      {workflow.app_url && (
        <p className="app-link">
          The built app:{' '}
          <a href={workflow.app_url} target="_blank" rel="noopener noreferrer">
            {workflow.app_url}
          </a>
        </p>
      )}
      {report.isPending && <Loading what="the report" />}
      {report.isError &&
        (isNotFound(report.error) ? (
          <Empty>No report yet: it is written when the workflow completes.</Empty>
        ) : (
          <ErrorNote error={report.error} />
        ))}
      {report.isSuccess && (
        <>
          <iframe
            key={report.dataUpdatedAt}
            className="report-frame"
            title="Workflow report"
            sandbox=""
            src={reportHtmlUrl(workflow.id)}
            // the markdown's length is a fair hint of the page's height; the frame scrolls beyond it
            style={{ height: `${Math.min(1200, Math.max(240, report.data.split('\n').length * 24))}px` }}
          />
          <p>
            <a href={reportHtmlUrl(workflow.id)} target="_blank" rel="noopener noreferrer">
              Open the report in a new tab
            </a>
          </p>
        </>
      )}
    </div>
  );
}
