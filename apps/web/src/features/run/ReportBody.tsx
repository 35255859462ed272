import { useQuery } from '@tanstack/react-query';
import { isNotFound } from '../../lib/api';
import { queryKeys } from '../../lib/query-keys';
import { Markdown } from '../../components/Markdown';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { getReportMarkdown, reportHtmlUrl } from '../workflow/api';

/** The run's report.md rendered in the app's markdown style, at its full height. */
export function ReportBody({ workflowId }: { workflowId: string }) {
  const report = useQuery({
    queryKey: queryKeys.report(workflowId),
    queryFn: () => getReportMarkdown(workflowId),
    retry: false,
  });
  if (report.isPending) return <Loading what="the report" />;
  if (report.isError)
    return isNotFound(report.error) ? (
      <Empty>No report yet: it is written when the workflow completes.</Empty>
    ) : (
      <ErrorNote error={report.error} />
    );
  return (
    <>
      <Markdown source={report.data} className="run-report" />
      <p className="small">
        <a href={reportHtmlUrl(workflowId)} target="_blank" rel="noopener noreferrer">
          Open the report on its own page
        </a>
      </p>
    </>
  );
}
