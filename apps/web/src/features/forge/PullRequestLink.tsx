import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../lib/query-keys';
import { workflowRepository } from '../repositories/api';

/**
 * The pull/merge request the server opened for the run's branch (decision 0047), or its branch while
 * there is none yet; nothing for a run without a repository. Refreshed by the `pull_request_opened`
 * event (useWorkflowLive).
 */
export function PullRequestLink({ workflowId, showBranch = false }: { workflowId: string; showBranch?: boolean }) {
  const repository = useQuery({
    queryKey: queryKeys.workflowRepository(workflowId),
    queryFn: () => workflowRepository(workflowId),
    retry: false,
  });
  const r = repository.data;
  if (!r) return null;
  if (r.pr_url && r.pr_number !== null)
    return (
      <p className="pull-request-link" data-testid="pull-request-link">
        Pull request{' '}
        <a href={r.pr_url} target="_blank" rel="noopener noreferrer">
          #{r.pr_number}
        </a>{' '}
        ({r.pr_state ?? 'open'}) from <code>{r.branch}</code> into <code>{r.base_branch}</code>
      </p>
    );
  if (!showBranch) return null;
  return (
    <p className="pull-request-link" data-testid="pull-request-branch">
      Branch <code>{r.branch}</code> of {r.repository.name} (base <code>{r.base_branch}</code>)
      {r.push_error ? `: the push failed (${r.push_error})` : r.pushed_at ? ': pushed' : ''}
    </p>
  );
}
