import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from 'express';
import { unauthenticated } from '../domain/errors';
import { metricsRegistry } from './registry';

/** The metrics text of this process, or of every process of the cluster (metrics/cluster.ts). */
export type RenderMetrics = () => Promise<{ contentType: string; body: string }>;

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

/**
 * The separate metrics listener (METRICS_LISTEN): `/metrics` without a token, for an address only the
 * scraper reaches (loopback, a private network). Anything else there is 404.
 */
export async function startMetricsListener(
  address: { host: string; port: number },
  render: RenderMetrics,
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    render().then(
      ({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType }).end(body),
      (err: unknown) => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return {
    server,
    url: `http://${host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
