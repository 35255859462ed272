import { useInfiniteQuery } from '@tanstack/react-query';
import type { LlmCallLog } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { formatDuration, formatNumber, formatTime } from '../../lib/format';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { getLlmCalls } from './api';
import { mergeLlmCalls, NO_TOTALS } from './history-merge';

const UNKNOWN_USAGE = 'unknown: the LLM endpoint reported no usage for this call';

/** A token count, or "—" when the endpoint did not report it (unknown is not 0). */
function Tokens({ count }: { count: number | null }) {
  return count === null ? (
    <abbr title={UNKNOWN_USAGE} aria-label="unknown">
      —
    </abbr>
  ) : (
    <>{formatNumber(count)}</>
  );
}

/** How the attempt ended: failed (with the error), cut off at the token limit, or fine. */
function Outcome({ call }: { call: LlmCallLog }) {
  const attempt = call.attempt > 1 ? `attempt ${call.attempt}: ` : '';
  if (call.error !== null)
    return (
      <span className="llm-failed" title={call.error}>
        {attempt}failed: {call.error}
      </span>
    );
  if (call.finish_reason === 'length')
    return <span className="muted">{attempt}cut off at the token limit, continued</span>;
  return <span className="muted">{attempt}ok</span>;
}

/**
 * Every LLM call (attempt) of the workflow with token counts, latency and result, and their totals.
 * Unknown usage shows as "—", never as 0; failed attempts show their error.
 */
export function LlmCallsTable({ workflowId, live }: { workflowId: string; live: readonly LlmCallLog[] }) {
  const calls = useInfiniteQuery({
    queryKey: queryKeys.llmCalls(workflowId),
    queryFn: ({ pageParam }) => getLlmCalls(workflowId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const pages = calls.data?.pages ?? [];
  const serverTotals = pages[0]?.totals ?? NO_TOTALS;
  const { items, totals } = mergeLlmCalls(
    pages.flatMap((p) => p.items),
    serverTotals,
    pages.length > 0 && !calls.hasNextPage,
    live,
  );
  if (calls.isPending) return <Loading what="LLM calls" />;
  return (
    <div>
      <ErrorNote error={calls.error} />
      {items.length === 0 ? (
        <Empty>No LLM calls yet.</Empty>
      ) : (
        <table className="table numbers">
          <caption className="visually-hidden">LLM calls</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Phase</th>
              <th scope="col">Model</th>
              <th scope="col">Step</th>
              <th scope="col">Prompt tokens</th>
              <th scope="col">Completion tokens</th>
              <th scope="col">Latency</th>
              <th scope="col" className="llm-outcome">
                Result
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((call) => (
              <tr key={call.id}>
                <td>{formatTime(call.created_at)}</td>
                <td>{call.phase}</td>
                <td>{call.model}</td>
                <td>{call.step_index === null ? '—' : call.step_index + 1}</td>
                <td>
                  <Tokens count={call.prompt_tokens} />
                </td>
                <td>
                  <Tokens count={call.completion_tokens} />
                </td>
                <td>{formatDuration(call.latency_ms)}</td>
                <td className="llm-outcome">
                  <Outcome call={call} />
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={4}>
                Total: {formatNumber(totals.calls)} calls
              </th>
              <td data-total="prompt_tokens">{formatNumber(totals.prompt_tokens)}</td>
              <td data-total="completion_tokens">{formatNumber(totals.completion_tokens)}</td>
              <td>{formatDuration(totals.latency_ms)}</td>
              <td className="llm-outcome" data-total="notes">
                {[
                  totals.failed_calls > 0 ? `${formatNumber(totals.failed_calls)} failed` : '',
                  totals.unknown_usage_calls > 0
                    ? `usage unknown for ${formatNumber(totals.unknown_usage_calls)} (token sums count the known ones)`
                    : '',
                ]
                  .filter(Boolean)
                  .join('; ')}
              </td>
            </tr>
          </tfoot>
        </table>
      )}
      {calls.hasNextPage && (
        <button type="button" onClick={() => void calls.fetchNextPage()} disabled={calls.isFetchingNextPage}>
          Load more calls
        </button>
      )}
    </div>
  );
}
