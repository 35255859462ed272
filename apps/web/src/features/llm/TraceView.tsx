import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { LlmCallLog } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { formatDuration, formatNumber } from '../../lib/format';
import { inBackground } from '../../lib/background';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { getSettings } from '../settings/api';
import { formatUsd, readPrices } from '../run/cost';
import { formatClock, formatFullTime } from '../log/format-time';
import { buildTrace, type Trace, type TraceBar, type TraceGroup } from './trace';
import { useLlmCalls } from './useLlmCalls';
import { LlmCallDetailView } from './LlmCallDetailView';
import './llm.css';
import './trace.css';

const tokens = (count: number | null) => (count === null ? '—' : formatNumber(count));
const usd = (cost: number | null) => (cost === null ? '—' : formatUsd(cost));

/**
 * The run's LLM calls as a trace: a timeline grouped by planning, each step and the report, each call a
 * bar placed by its start and sized by its latency, with its tokens and cost; choosing a call shows what
 * it sent (messages, tool definitions, tool results) and its reply.
 */
export function TraceView({ workflowId, live }: { workflowId: string; live: readonly LlmCallLog[] }) {
  const { calls, items } = useLlmCalls(workflowId, live);
  const settings = useQuery({ queryKey: queryKeys.settings, queryFn: getSettings });
  const prices = readPrices(settings.data);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  if (calls.isPending) return <Loading what="LLM calls" />;
  const trace = buildTrace(items, prices.kind === 'prices' ? prices.prices : null);
  const selected = items.find((c) => c.id === selectedId) ?? null;
  return (
    <div className={`trace-view${selected ? ' trace-view-split' : ''}`}>
      <div className="trace-main">
        <ErrorNote error={calls.error} />
        {items.length === 0 ? (
          <Empty>No LLM calls yet.</Empty>
        ) : (
          <>
            <p className="muted small trace-summary">
              {formatNumber(items.length)} calls over {formatDuration(trace.spanMs)}. Each bar starts when the request
              went out and is as long as the call took; choose a call to see its messages.
              {prices.kind !== 'prices' && ' Costs need prices (Settings, llm_prices).'}
            </p>
            <div className="trace-timeline">
              {trace.groups.map((group) => (
                <TraceGroupView
                  key={group.key}
                  group={group}
                  trace={trace}
                  selectedId={selectedId}
                  onSelect={(id) => setSelectedId(id === selectedId ? null : id)}
                />
              ))}
            </div>
          </>
        )}
        {calls.hasNextPage && (
          <button type="button" onClick={() => inBackground(calls.fetchNextPage())} disabled={calls.isFetchingNextPage}>
            Load more calls
          </button>
        )}
      </div>
      {selected && <TraceCallDetail workflowId={workflowId} call={selected} />}
    </div>
  );
}

function TraceGroupView({
  group,
  trace,
  selectedId,
  onSelect,
}: {
  group: TraceGroup;
  trace: Trace;
  selectedId: string | null;
  onSelect(id: string): void;
}) {
  const headingId = `trace-group-${group.key}`;
  return (
    <section className="trace-group" aria-labelledby={headingId} data-trace-group={group.key}>
      <h3 id={headingId} className="trace-group-head">
        {group.label}{' '}
        <span className="muted small">
          {group.bars.length} {group.bars.length === 1 ? 'call' : 'calls'} · {usd(group.cost)}
        </span>
      </h3>
      <ol className="trace-calls">
        {group.bars.map((bar) => (
          <li key={bar.call.id}>
            <TraceCallButton bar={bar} trace={trace} selected={bar.call.id === selectedId} onSelect={onSelect} />
          </li>
        ))}
      </ol>
    </section>
  );
}

function TraceCallButton({
  bar,
  trace,
  selected,
  onSelect,
}: {
  bar: TraceBar;
  trace: Trace;
  selected: boolean;
  onSelect(id: string): void;
}) {
  const { call } = bar;
  const share = (count: number | null, max: number) => (count === null || max === 0 ? 0 : (count / max) * 100);
  return (
    <button
      type="button"
      className={`trace-call${call.error !== null ? ' trace-call-failed' : ''}`}
      aria-pressed={selected}
      aria-controls={selected ? 'trace-detail' : undefined}
      data-call-id={call.id}
      onClick={() => onSelect(call.id)}
    >
      <span className="trace-call-facts">
        <time dateTime={call.created_at} title={formatFullTime(call.created_at)}>
          {formatClock(new Date(bar.startMs).toISOString())}
        </time>
        <span className="trace-model">{call.model}</span>
        <span data-fact="latency">{formatDuration(call.latency_ms)}</span>
        <span data-fact="tokens">
          {tokens(call.prompt_tokens)} in / {tokens(call.completion_tokens)} out
        </span>
        <span data-fact="cost">{usd(bar.cost)}</span>
        {call.error !== null && <span className="llm-failed">failed</span>}
      </span>
      <span className="trace-track" aria-hidden="true">
        <span className="trace-bar" style={{ marginLeft: `${bar.offsetPct}%`, width: `${bar.widthPct}%` }} />
      </span>
      <span className="trace-token-bars" aria-hidden="true">
        <span className="trace-tokens-in" style={{ width: `${share(call.prompt_tokens, trace.maxPromptTokens)}%` }} />
        <span
          className="trace-tokens-out"
          style={{ width: `${share(call.completion_tokens, trace.maxCompletionTokens)}%` }}
        />
      </span>
    </button>
  );
}

/** Below this width the messages come after the whole timeline (trace.css), so choosing a call goes to them. */
const STACKED = '(max-width: 999px)';

const callButton = (callId: string) => document.querySelector<HTMLElement>(`.trace-call[data-call-id="${callId}"]`);

function TraceCallDetail({ workflowId, call }: { workflowId: string; call: LlmCallLog }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (window.matchMedia(STACKED).matches) heading.current?.focus();
  }, [call.id]);
  return (
    <section id="trace-detail" className="trace-detail" aria-labelledby="trace-detail-heading">
      <h3 id="trace-detail-heading" ref={heading} tabIndex={-1}>
        {call.model} at {formatClock(call.created_at)}
        {call.attempt > 1 && `, attempt ${call.attempt}`}
      </h3>
      <button type="button" className="link-button trace-back" onClick={() => callButton(call.id)?.focus()}>
        Back to the call on the timeline
      </button>
      {call.error !== null && <p className="llm-failed">Failed: {call.error}</p>}
      <LlmCallDetailView key={call.id} workflowId={workflowId} callId={call.id} known={call.has_detail} />
    </section>
  );
}
