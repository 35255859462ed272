import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { sampledTraceRef, tracingActive, type TraceRef } from '@svc/observability';

/** Looked up per span: a tracer taken before the SDK registered would stay a no-op (see the worker's spans.ts). */
const tracer = () => trace.getTracer('svc-api');

/**
 * The trace a new run belongs to (decision 0052): the creating request's span when it is sampled; a
 * run created outside a request (a schedule's tick) gets a root span of its own, `create_run`. Null
 * with tracing off (the no-op API's spans are never sampled) or when the sampler dropped the trace.
 */
export function newRunTrace(): TraceRef | null {
  const current = sampledTraceRef();
  if (current || !tracingActive()) return current;
  const span = tracer().startSpan('create_run', { root: true });
  span.end();
  return sampledTraceRef(trace.setSpan(ROOT_CONTEXT, span));
}
