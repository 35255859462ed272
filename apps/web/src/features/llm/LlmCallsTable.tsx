import { useState } from 'react';
import type { LlmCallLog, LlmCallTotals } from '@svc/protocol';
import { formatDuration, formatNumber } from '../../lib/format';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { useLlmCalls } from './useLlmCalls';
import { LlmCallRow } from './LlmCallRow';
import './llm.css';
import { inBackground } from '../../lib/background';

/**
 * Every LLM call (attempt) of the workflow with token counts, latency and result, and their totals;
 * each call opens to the messages sent and the reply. Unknown usage shows as "—", never as 0. On a
 * phone the rows become cards (labels from `data-label`).
 */
export function LlmCallsTable({ workflowId, live }: { workflowId: string; live: readonly LlmCallLog[] }) {
  const { calls, items, totals } = useLlmCalls(workflowId, live);
  const [open, toggle] = useToggleSet();
  if (calls.isPending) return <Loading what="LLM calls" />;
  return (
    <div>
      <ErrorNote error={calls.error} />
      {items.length === 0 ? (
        <Empty>No LLM calls yet.</Empty>
      ) : (
        <div className="table-scroll">
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
              {items.map((call) => (
                <LlmCallRow
                  key={call.id}
                  workflowId={workflowId}
                  call={call}
                  expanded={open.has(call.id)}
                  onToggle={() => toggle(call.id)}
                />
              ))}
            </tbody>
            <tfoot>
              <TotalsRow totals={totals} />
            </tfoot>
          </table>
        </div>
      )}
      {calls.hasNextPage && (
        <button type="button" onClick={() => inBackground(calls.fetchNextPage())} disabled={calls.isFetchingNextPage}>
          Load more calls
        </button>
      )}
    </div>
  );
}

/** A set of ids and a function that adds an id to it or removes it. */
function useToggleSet(): [ReadonlySet<string>, (id: string) => void] {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return [open, toggle];
}

function TotalsRow({ totals }: { totals: LlmCallTotals }) {
  const notes = [
    totals.failed_calls > 0 ? `${formatNumber(totals.failed_calls)} failed` : '',
    totals.unknown_usage_calls > 0
      ? `usage unknown for ${formatNumber(totals.unknown_usage_calls)} (token sums count the known ones)`
      : '',
  ];
  return (
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
        {notes.filter(Boolean).join('; ')}
      </td>
    </tr>
  );
}
