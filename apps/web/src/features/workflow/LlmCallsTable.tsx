import { useInfiniteQuery } from '@tanstack/react-query';
import type { LlmCallLog } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { formatDuration, formatNumber, formatTime } from '../../lib/format';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { getLlmCalls } from './api';
import { mergeLlmCalls } from './history-merge';

/** Every LLM call of the workflow with token counts and latency, and their totals. */
export function LlmCallsTable({ workflowId, live }: { workflowId: string; live: readonly LlmCallLog[] }) {
  const calls = useInfiniteQuery({
    queryKey: queryKeys.llmCalls(workflowId),
    queryFn: ({ pageParam }) => getLlmCalls(workflowId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const pages = calls.data?.pages ?? [];
  const serverTotals = pages[0]?.totals ?? { calls: 0, prompt_tokens: 0, completion_tokens: 0, latency_ms: 0 };
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
            </tr>
          </thead>
          <tbody>
            {items.map((call) => (
              <tr key={call.id}>
                <td>{formatTime(call.created_at)}</td>
                <td>{call.phase}</td>
                <td>{call.model}</td>
                <td>{call.step_index === null ? '—' : call.step_index + 1}</td>
                <td>{formatNumber(call.prompt_tokens)}</td>
                <td>{formatNumber(call.completion_tokens)}</td>
                <td>{formatDuration(call.latency_ms)}</td>
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
