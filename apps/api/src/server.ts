import { createServer, type Server } from 'node:http';
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
  return {
    server,
    url,
    sockets,
    metricsUrl: metrics?.url ?? null,
    close: async () => {
      await metrics?.close();
      await sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}
