import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { hasProjectChange, PROJECT_RECORD_CHANGES } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { useProjectEvents } from '../../lib/live';
import { formatTime, previewLines, shorten } from '../../lib/format';
import { StatusBadge } from '../../components/StatusBadge';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { listWorkflows } from './api';

/** The project's workflows, newest first, kept current by the project's live events. */
export function WorkflowList({ projectId }: { projectId: string }) {
  const queryClient = useQueryClient();
  const workflows = useInfiniteQuery({
    queryKey: queryKeys.workflows(projectId),
    queryFn: ({ pageParam }) => listWorkflows(projectId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  useProjectEvents(projectId, (event) => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.workflows(projectId) });
    if (event && hasProjectChange(event, PROJECT_RECORD_CHANGES)) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
    }
  });
  const items = workflows.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section aria-labelledby="workflows-heading">
      <h2 id="workflows-heading">Workflows</h2>
      {workflows.isPending && <Loading what="workflows" />}
      <ErrorNote error={workflows.error} />
      {workflows.isSuccess && items.length === 0 && (
        <Empty>No workflows yet. Describe what to build above to start one.</Empty>
      )}
      <ul className="workflow-list">
        {items.map((workflow) => (
          <li key={workflow.id} className="workflow-item" data-workflow-id={workflow.id}>
            <div className="workflow-item-head">
              <Link
                to={`/projects/${encodeURIComponent(projectId)}/workflows/${encodeURIComponent(workflow.id)}`}
                className="workflow-title"
                title={workflow.title}
              >
                {shorten(workflow.title || 'Untitled workflow', 100)}
              </Link>
              <StatusBadge status={workflow.status} />
            </div>
            <p className="workflow-preview">{previewLines(workflow.requirement, 2, 200)}</p>
            <p className="muted small">Created {formatTime(workflow.created_at)}</p>
          </li>
        ))}
      </ul>
      {workflows.hasNextPage && (
        <button type="button" onClick={() => void workflows.fetchNextPage()} disabled={workflows.isFetchingNextPage}>
          {workflows.isFetchingNextPage ? 'Loading…' : 'Show older workflows'}
        </button>
      )}
    </section>
  );
}
