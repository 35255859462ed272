import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { routeOf } from '../metrics/http';

/** Looked up per span: a tracer taken before the SDK registered would stay a no-op (see the worker's spans.ts). */
const tracer = () => trace.getTracer('svc-api');

/**
 * A server span per HTTP request (decision 0052), made by hand instead of by instrumentation-http's
 * patching of `node:http`: named `METHOD /route/{template}` (the operation's template, as the metrics
 * label it; just `METHOD` for what no route served), with the HTTP semantic-convention attributes,
 * error status for a 5xx. An incoming W3C `traceparent` is the parent. The span is active for the rest
 * of the chain, so the database spans of the request are its children. Mounted only while tracing is on.
 */
export const httpTracing: RequestHandler = (req, res, next) => {
  const parent = propagation.extract(context.active(), req.headers);
  const span = tracer().startSpan(
    req.method,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': req.method, 'url.path': req.path, 'url.scheme': req.protocol },
    },
    parent,
  );
  res.once('close', () => {
    const route = routeOf(req);
    const known = route !== 'unmatched' && route !== 'web app';
    if (known) {
      span.updateName(`${req.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', res.statusCode);
    if (req.id) span.setAttribute('svc.request_id', req.id);
    if (res.statusCode >= 500) {
      span.setAttribute('error.type', String(res.statusCode));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  });
  context.with(trace.setSpan(parent, span), next);
};
