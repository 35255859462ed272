import type { LlmCallLog } from '@svc/protocol';
import { formatDuration, formatNumber } from '../../lib/format';
import { formatClock, formatFullTime } from '../log/format-time';
import { LlmCallDetailView } from './LlmCallDetailView';

const UNKNOWN_USAGE = 'unknown: the LLM endpoint reported no usage for this call';
/** The table's columns, which the detail row spans. */
export const COLUMNS = 9;

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

/** One call's row, and under it, when expanded, the messages sent and the reply. */
export function LlmCallRow({
  workflowId,
  call,
  expanded,
  onToggle,
}: {
  workflowId: string;
  call: LlmCallLog;
  expanded: boolean;
  onToggle(): void;
}) {
  const detailId = `llm-detail-${call.id}`;
  return (
    <>
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
            onClick={onToggle}
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
    </>
  );
}
