import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { queryKeys } from '../../lib/query-keys';
import { formatFullTime } from '../log/format-time';
import { splitPatch, type PatchSection } from '../files/patch';
import { PatchLines } from '../files/DiffView';
import type { WorkflowRepository, WorkflowRepositoryDiff } from '@svc/protocol';
import { workflowRepository, workflowRepositoryDiff } from './api';

/** The run's branch against its base, as the worker last pushed it (decision 0046). */
export function BranchDiff({ workflowId }: { workflowId: string }) {
  const record = useQuery({
    queryKey: queryKeys.workflowRepository(workflowId),
    queryFn: () => workflowRepository(workflowId),
  });
  const diff = useQuery({
    queryKey: queryKeys.workflowRepositoryDiff(workflowId),
    queryFn: () => workflowRepositoryDiff(workflowId),
  });
  if (record.isPending || diff.isPending) return <Loading what="the branch diff" />;
  if (record.isError || diff.isError) return <ErrorNote error={record.error ?? diff.error} />;
  return <BranchDiffView run={record.data} diff={diff.data} />;
}

function BranchDiffView({ run, diff }: { run: WorkflowRepository; diff: WorkflowRepositoryDiff }) {
  const sections = useMemo(() => splitPatch(diff.patch), [diff.patch]);
  return (
    <div className="branch-diff">
      <BranchLine run={run} />
      {run.push_error && <ErrorNote>The push failed: {run.push_error}</ErrorNote>}
      {diff.truncated && <p className="muted small">The diff is cut: it is larger than the service keeps.</p>}
      {sections.length === 0 ? (
        <Empty>{run.head_sha ? 'The branch changes nothing against its base.' : 'Not pushed yet.'}</Empty>
      ) : (
        <PatchFiles sections={sections} />
      )}
    </div>
  );
}

/** Which branch, against which base, at which head; when it was pushed and its pull request. */
function BranchLine({ run }: { run: WorkflowRepository }) {
  return (
    <p>
      Branch <code>{run.branch}</code> of <strong>{run.repository.name}</strong> against <code>{run.base_branch}</code>
      {run.head_sha && (
        <>
          {' '}
          at <code>{run.head_sha.slice(0, 12)}</code>
        </>
      )}
      {run.pushed_at && <span className="muted"> · pushed {formatFullTime(run.pushed_at)}</span>}
      {run.pr_url && (
        <>
          {' '}
          · <a href={run.pr_url}>pull request #{run.pr_number}</a>
        </>
      )}
    </p>
  );
}

function PatchFiles({ sections }: { sections: PatchSection[] }) {
  return (
    <ul className="diff-files">
      {sections.map((section) => (
        <li key={section.path} data-path={section.path}>
          <details open={sections.length <= 5}>
            <summary>
              <code>{section.path}</code>
            </summary>
            <PatchLines section={section} />
          </details>
        </li>
      ))}
    </ul>
  );
}
