import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app';
import type { Runtime } from './bootstrap';
import { attachWebSockets, type WebSocketAttachment } from './ws/upgrade';
import { answerClientError } from './http/timeouts';
import { setMetricSources } from './metrics/registry';
import { startMetricsListener, type RenderMetrics } from '@svc/observability';
import { renderOwnMetrics } from './metrics/endpoint';

export interface RunningServer {
  server: Server;
  url: string;
  sockets: WebSocketAttachment;
  /** the METRICS_LISTEN listener's URL (null: none here) */
  metricsUrl: string | null;
  /**
   * The graceful stop of SIGTERM (decision 0061): readiness fails, new connections are refused, sockets
   * are told to go away (1001) and event streams end, what is in flight has the grace period to finish,
   * then the rest is cut and the runtime closed. Calling it again returns the same stop.
   */
  shutdown(): Promise<void>;
  /** Stops at once, cutting whatever is in flight (tests). */
  close(): Promise<void>;
}

/** Starts HTTP (and, through attachments, WebSocket) serving on the configured host and port. */
export async function startServer(
  runtime: Runtime,
  options: { port?: number; host?: string; renderMetrics?: RenderMetrics; metricsListener?: boolean } = {},
): Promise<RunningServer> {
  const { config } = runtime.deps;
  const limits = config.http;
  // Node checks the header deadline on this interval; a quarter of it keeps the overshoot small.
  const connectionsCheckingInterval = Math.min(30_000, Math.max(5, Math.floor(limits.headersTimeoutMs / 4)));
  const server = createServer(
    { connectionsCheckingInterval },
    createApp(runtime.deps, options.renderMetrics ?? renderOwnMetrics),
  );
  // Large uploads and downloads stream for as long as they need; a stalled body is cut by bodyTimeout.
  server.requestTimeout = 0;
  server.headersTimeout = limits.headersTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.on('clientError', answerClientError);
  const { serving, logger } = runtime.deps;
  const inFlight = new Set<ServerResponse>();
  // After the response's own 'finish' handling has made its connection idle.
  const closeIdleSoon = () => setImmediate(() => server.closeIdleConnections());
  // Before the app's own listener, so the header is there before any response is written.
  server.prependListener('request', (_req, res: ServerResponse) => {
    // Draining: each response closes its connection, so a keep-alive client opens its next one elsewhere.
    if (serving.draining) {
      res.setHeader('Connection', 'close');
      // Even a response that sets its own Connection header (an event stream) leaves its connection idle.
      res.once('finish', closeIdleSoon);
    }
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  const sockets = attachWebSockets(server, runtime);
  setMetricSources({
    db: runtime.deps.db,
    pgPool: runtime.dbHandle.pgPool,
    browserSockets: () => sockets.browsers.size,
    workerSockets: () => sockets.workers.size,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? config.port, options.host ?? config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host ?? config.host}:${port}`;
  // Under API_PROCESSES the cluster primary serves METRICS_LISTEN for every process (metrics/cluster.ts).
  const metrics =
    config.metrics.listen && options.metricsListener !== false
      ? await startMetricsListener(config.metrics.listen, options.renderMetrics ?? renderOwnMetrics)
      : null;
  let closed: Promise<void> | null = null;
  /** Refuses new connections; resolves once every connection (upgraded sockets included) has ended. */
  const stopListening = () => (closed ??= new Promise<void>((resolve) => server.close(() => resolve())));
  const finish = async () => {
    await metrics?.close();
    await sockets.close();
    server.closeAllConnections();
    await stopListening();
    await runtime.close();
  };

  const drain = async () => {
    const { delayMs, graceMs } = config.shutdown;
    serving.drain();
    logger.info({ delayMs, graceMs, requests: inFlight.size }, 'draining: readiness fails from now on');
    // The balancer's next checks see readiness fail while this process still accepts what it sends.
    if (delayMs > 0) await wait(delayMs);
    const ended = stopListening();
    server.closeIdleConnections();
    // A keep-alive connection whose last response ends now is idle: closed at once, not at its time-out.
    for (const res of inFlight) res.once('finish', closeIdleSoon);
    sockets.goAway();
    logger.info({ requests: inFlight.size }, 'draining: new connections refused, sockets told to go away');
    const inTime = await Promise.race([ended.then(() => true), wait(graceMs).then(() => false)]);
    if (inTime) logger.info('drained: everything in flight finished');
    else logger.warn({ requests: inFlight.size }, 'grace period over: cutting what is still in flight');
    await finish();
  };
  let stopping: Promise<void> | null = null;

  return {
    server,
    url,
    sockets,
    metricsUrl: metrics?.url ?? null,
    shutdown: () => (stopping ??= drain()),
    close: () => (stopping ??= finish()),
  };
}

/** Resolves after `ms`, without holding the process open. */
const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
