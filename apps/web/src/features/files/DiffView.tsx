import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { formatClock, formatFullTime } from '../log/format-time';
import type { StepDiff, StepDiffFile } from '@svc/protocol';
import { getStepDiffs } from './api';
import { splitPatch, type PatchSection } from './patch';

const STATUS_MARK: Record<StepDiffFile['status'], string> = { added: 'A', modified: 'M', deleted: 'D' };

function Counts({ file }: { file: StepDiffFile }) {
  if (file.binary) return <span className="muted small">binary</span>;
  return (
    <span className="diff-counts">
      <span className="diff-plus">+{file.additions}</span> <span className="diff-minus">−{file.deletions}</span>
    </span>
  );
}

/** One file's patch lines, coloured by kind (also the branch diff's, features/repositories). */
export function PatchLines({ section }: { section: PatchSection }) {
  return (
    <pre className="diff-patch">
      {section.lines.map((line, i) => (
        <span key={i} className={`diff-line diff-${line.kind}`}>
          {line.text}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

function StepDiffView({ diff }: { diff: StepDiff }) {
  const sections = useMemo(() => splitPatch(diff.patch), [diff.patch]);
  const additions = diff.files.reduce((n, f) => n + f.additions, 0);
  const deletions = diff.files.reduce((n, f) => n + f.deletions, 0);
  return (
    <li className="step-diff" data-step={diff.step_index}>
      <div className="step-diff-head">
        <h3>
          Step {diff.step_index + 1}
          {diff.revision > 0 && <span className="muted"> (revision {diff.revision})</span>}
        </h3>
        <span className="muted small">
          {diff.files.length} file{diff.files.length === 1 ? '' : 's'} changed,{' '}
          <span className="diff-plus">+{additions}</span> <span className="diff-minus">−{deletions}</span>
        </span>
        <time className="muted small" dateTime={diff.created_at} title={formatFullTime(diff.created_at)}>
          {formatClock(diff.created_at)}
        </time>
      </div>
      {diff.files.length === 0 && <p className="muted small">This step changed no file.</p>}
      <ul className="diff-files">
        {diff.files.map((file) => {
          const section = sections.find((s) => s.path === file.path);
          return (
            <li key={file.path} data-path={file.path}>
              <details open={diff.files.length <= 3}>
                <summary>
                  <abbr className={`diff-status diff-status-${file.status}`} title={file.status}>
                    {STATUS_MARK[file.status]}
                  </abbr>{' '}
                  <code className="diff-path">{file.path}</code> <Counts file={file} />
                </summary>
                {section ? (
                  <PatchLines section={section} />
                ) : (
                  <p className="muted small">{file.binary ? 'Binary file: no text diff.' : 'Not in the kept patch.'}</p>
                )}
              </details>
            </li>
          );
        })}
      </ul>
      {diff.truncated && (
        <p className="muted small">The patch was cut to the worker&apos;s size bound: some changes are not shown.</p>
      )}
    </li>
  );
}

/** What each step changed in the workspace (GET /workflows/{id}/diffs), newest step last. */
export function DiffView({ workflowId }: { workflowId: string }) {
  const diffs = useQuery({ queryKey: ['workflow', workflowId, 'diffs'], queryFn: () => getStepDiffs(workflowId) });
  if (diffs.isPending) return <Loading what="the changes by step" />;
  if (diffs.error) return <ErrorNote error={diffs.error} />;
  if (diffs.data.length === 0) return <Empty>No step has finished yet, so there are no changes to show.</Empty>;
  return (
    <ol className="step-diffs">
      {diffs.data.map((diff, i) => (
        <StepDiffView key={`${i}-${diff.step_index}`} diff={diff} />
      ))}
    </ol>
  );
}
