import { Fragment, useState } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import type { LlmCallLog } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { formatDuration, formatNumber } from '../../lib/format';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { mergeLlmCalls, NO_TOTALS } from '../workflow/history-merge';
import { formatClock, formatFullTime } from '../log/format-time';
import { getLlmCallPage } from './api';
import { LlmCallDetailView } from './LlmCallDetailView';
import './llm.css';
import { inBackground } from '../../lib/background';

const UNKNOWN_USAGE = 'unknown: the LLM endpoint reported no usage for this call';
const COLUMNS = 9;

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
 * Every LLM call (attempt) of the workflow with token counts, latency and result, and their totals;
 * each call opens to the messages sent and the reply. Unknown usage shows as "—", never as 0. On a
 * phone the rows become cards (labels from `data-label`).
 */
export function LlmCallsTable({ workflowId, live }: { workflowId: string; live: readonly LlmCallLog[] }) {
  const calls = useInfiniteQuery({
    queryKey: queryKeys.llmCalls(workflowId),
    queryFn: ({ pageParam }) => getLlmCallPage(workflowId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
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
        <table className="table numbers llm-table">
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
              <th scope="col" className="llm-toggle-cell">
                Messages
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((call) => {
              const expanded = open.has(call.id);
              const detailId = `llm-detail-${call.id}`;
              return (
                <Fragment key={call.id}>
                  <tr className="llm-call" data-call-id={call.id}>
                    <td data-label="Time">
                      <time dateTime={call.created_at} title={formatFullTime(call.created_at)}>
                        {formatClock(call.created_at)}
                      </time>
                    </td>
                    <td data-label="Phase">{call.phase}</td>
                    <td data-label="Model">{call.model}</td>
                    <td data-label="Step">{call.step_index === null ? '—' : call.step_index + 1}</td>
                    <td data-label="Prompt tokens">
                      <Tokens count={call.prompt_tokens} />
                    </td>
                    <td data-label="Completion tokens">
                      <Tokens count={call.completion_tokens} />
                    </td>
                    <td data-label="Latency">{formatDuration(call.latency_ms)}</td>
                    <td className="llm-outcome" data-label="Result">
                      <Outcome call={call} />
                    </td>
                    <td className="llm-toggle-cell">
                      <button
                        type="button"
                        className="link-button"
                        aria-expanded={expanded}
                        aria-controls={expanded ? detailId : undefined}
                        onClick={() => toggle(call.id)}
                      >
                        {expanded ? 'Hide messages' : 'Show messages'}
                        <span className="visually-hidden"> of the call at {formatClock(call.created_at)}</span>
                      </button>
                    </td>
                  </tr>
                  {expanded && (
                    <tr className="llm-detail-row" id={detailId}>
                      <td colSpan={COLUMNS}>
                        <LlmCallDetailView workflowId={workflowId} callId={call.id} known={call.has_detail} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={4}>
                Total: {formatNumber(totals.calls)} calls
              </th>
              <td data-total="prompt_tokens" data-label="Prompt tokens">
                {formatNumber(totals.prompt_tokens)}
              </td>
              <td data-total="completion_tokens" data-label="Completion tokens">
                {formatNumber(totals.completion_tokens)}
              </td>
              <td data-label="Latency">{formatDuration(totals.latency_ms)}</td>
              <td className="llm-outcome" data-total="notes" colSpan={2}>
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
        <button type="button" onClick={() => inBackground(calls.fetchNextPage())} disabled={calls.isFetchingNextPage}>
          Load more calls
        </button>
      )}
    </div>
  );
}
