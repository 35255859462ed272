import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { RenderMetrics } from '@svc/observability';
import { unauthenticated } from '../domain/errors';
import { metricsRegistry } from './registry';

/** The metrics text of this process (metrics/cluster.ts renders every process of the cluster). */
export const renderOwnMetrics: RenderMetrics = async () => ({
  contentType: metricsRegistry.contentType,
  body: await metricsRegistry.metrics(),
});

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * `GET /metrics` on the API's port: only with `Authorization: Bearer <METRICS_TOKEN>`. Without a
 * configured token the path does not exist (404, as any unknown path); a missing or wrong token is the
 * contract's 401 body, with no metric in it. The token is compared in constant time.
 */
export function metricsRoute(token: string | null, render: RenderMetrics): RequestHandler {
  const expected = token === null ? null : digest(token);
  return (req, res, next) => {
    if (expected === null || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    const header = req.headers.authorization ?? '';
    const presented = /^Bearer (.+)$/i.exec(header)?.[1];
    if (!presented || !timingSafeEqual(digest(presented), expected))
      return next(unauthenticated('metrics need Authorization: Bearer <METRICS_TOKEN>'));
    render().then(({ contentType, body }) => {
      res.status(200).set({ 'Content-Type': contentType, 'Cache-Control': 'no-store' }).send(body);
    }, next);
  };
}
