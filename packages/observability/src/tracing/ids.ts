import { context, isSpanContextValid, trace, TraceFlags, type Context, type SpanContext } from '@opentelemetry/api';

/**
 * The trace and span ids of the active span, for log lines (the log context's pino mixin); `{}` when no
 * span is active or tracing is off (the no-op API has no valid span then).
 */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}

/** A run's stored trace position (decision 0052): its trace id and the span its worker spans hang under. */
export interface TraceRef {
  trace_id: string;
  trace_span_id: string;
}

/**
 * The active span's position when it is sampled (what a new run stores), else null: a run created
 * while tracing is off, or in a trace the sampler dropped, has no trace.
 */
export function sampledTraceRef(ctx: Context = context.active()): TraceRef | null {
  const ids = trace.getSpanContext(ctx);
  if (!ids || !isSpanContextValid(ids) || (ids.traceFlags & TraceFlags.SAMPLED) === 0) return null;
  return { trace_id: ids.traceId, trace_span_id: ids.spanId };
}

/** The W3C `traceparent` of a stored trace position (sampled: only sampled positions are stored). */
export const traceparentOf = (ref: TraceRef): string => `00-${ref.trace_id}-${ref.trace_span_id}-01`;

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The span context a W3C `traceparent` names (remote), or null when it is malformed or all zeros. */
export function parseTraceparent(value: string | undefined): SpanContext | null {
  const match = value === undefined ? null : TRACEPARENT.exec(value.trim().toLowerCase());
  if (!match || match[1] === 'ff' || (match[1] === '00' && match[5] !== undefined)) return null;
  const ids: SpanContext = {
    traceId: match[2]!,
    spanId: match[3]!,
    traceFlags: parseInt(match[4]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(ids) ? ids : null;
}

/** `ctx` with the remote parent a `traceparent` names; `ctx` itself when there is none. */
export function contextFromTraceparent(value: string | undefined, ctx: Context = context.active()): Context {
  const ids = parseTraceparent(value);
  return ids ? trace.setSpanContext(ctx, ids) : ctx;
}
