import { useState } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import type { ExecutionLogEntry } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { clipOutput, formatBytes, formatTime } from '../../lib/format';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { getLog } from './api';
import { mergeLog } from './history-merge';

/** Output longer than this is cut (UTF-8-safely) until the reader asks for all of it. */
export const OUTPUT_PREVIEW_BYTES = 4096;

/** The execution log: loaded pages plus live `log_entry` events, tool input as YAML. */
export function ExecutionLog({
  workflowId,
  live,
  stepFilter = null,
  onStepFilterChange,
}: {
  workflowId: string;
  live: readonly ExecutionLogEntry[];
  /** show only this step's entries (0-based step index) */
  stepFilter?: number | null;
  onStepFilterChange?: (step: number | null) => void;
}) {
  const log = useInfiniteQuery({
    queryKey: queryKeys.log(workflowId),
    queryFn: ({ pageParam }) => getLog(workflowId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const all = mergeLog(log.data?.pages.flatMap((p) => p.items) ?? [], live);
  const entries = stepFilter === null ? all : all.filter((e) => e.step_index === stepFilter);
  return (
    <div className="log">
      {log.isPending && <Loading what="the execution log" />}
      <ErrorNote error={log.error} />
      {stepFilter !== null && (
        <p className="muted small" data-testid="log-step-filter">
          Showing step {stepFilter + 1} only.{' '}
          {onStepFilterChange && (
            <button type="button" className="link-button" onClick={() => onStepFilterChange(null)}>
              Show every step
            </button>
          )}
        </p>
      )}
      {!log.isPending && entries.length === 0 && <Empty>Nothing has run yet.</Empty>}
      <ol className="log-entries" aria-label="Execution log">
        {entries.map((entry) => (
          <LogEntry key={entry.seq} entry={entry} />
        ))}
      </ol>
      {log.hasNextPage && (
        <button type="button" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
          Load more entries
        </button>
      )}
    </div>
  );
}

function LogEntry({ entry }: { entry: ExecutionLogEntry }) {
  const [full, setFull] = useState(false);
  const clipped = clipOutput(entry.output, OUTPUT_PREVIEW_BYTES);
  return (
    <li className={`log-entry${entry.is_error ? ' log-error' : ''}`} data-seq={entry.seq}>
      <div className="log-head">
        <code className="tool-name">{entry.tool_name}</code>
        {entry.step_index !== null && <span className="muted">step {entry.step_index + 1}</span>}
        {entry.is_error && <span className="badge badge-failed">error</span>}
        <span className="muted small">{formatTime(entry.created_at)}</span>
      </div>
      <details open={entry.tool_input.length < 600}>
        <summary>Input</summary>
        <pre className="code">{entry.tool_input}</pre>
      </details>
      {entry.output && (
        <>
          <pre className="code output">{full ? entry.output : clipped.text}</pre>
          {clipped.omittedBytes > 0 && (
            <button type="button" className="link-button" onClick={() => setFull(!full)}>
              {full ? 'Show less' : `Show all output (${formatBytes(clipped.omittedBytes)} more)`}
            </button>
          )}
        </>
      )}
    </li>
  );
}
