import type { Request, RequestHandler } from 'express';
import { httpRequestDuration } from './registry';

const ROUTE = Symbol('route template');
type WithRoute = Request & { [ROUTE]?: string };

/** Names the request's route by its template (`/svc/api/workflows/{id}`), as the operation table writes it. */
export function markRoute(req: Request, template: string): void {
  (req as WithRoute)[ROUTE] = template;
}

/**
 * Times every request into `svc_http_request_duration_seconds` when its response closes, labelled by
 * method, route template and status. The label is the operation's path template (or Express's route
 * path), never the URL: no ids reach a label. What no route served is `unmatched` below /svc and
 * `web app` elsewhere (the web app's static files).
 */
export const httpMetrics: RequestHandler = (req, res, next) => {
  const started = process.hrtime.bigint();
  res.once('close', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    httpRequestDuration.observe(
      { method: methodLabel(req.method), route: routeOf(req), status: String(res.statusCode) },
      seconds,
    );
  });
  next();
};

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const methodLabel = (method: string) => (METHODS.has(method) ? method : 'OTHER');

/** The request's route template as the metrics label it (also the name of its trace span). */
export function routeOf(req: Request): string {
  const marked = (req as WithRoute)[ROUTE];
  if (marked) return marked;
  const route = req.route as { path?: unknown } | undefined;
  if (route && typeof route.path === 'string') return `${req.baseUrl}${route.path}`;
  return req.originalUrl.startsWith('/svc') || req.originalUrl === '/metrics' ? 'unmatched' : 'web app';
}
