import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app';
import type { Runtime } from './bootstrap';
import { attachWebSockets, type WebSocketAttachment } from './ws/upgrade';
import { answerClientError } from './http/timeouts';

export interface RunningServer {
  server: Server;
  url: string;
  sockets: WebSocketAttachment;
  close(): Promise<void>;
}

/** Starts HTTP (and, through attachments, WebSocket) serving on the configured host and port. */
export async function startServer(
  runtime: Runtime,
  options: { port?: number; host?: string } = {},
): Promise<RunningServer> {
  const { config } = runtime.deps;
  const limits = config.http;
  // Node checks the header deadline on this interval; a quarter of it keeps the overshoot small.
  const connectionsCheckingInterval = Math.min(30_000, Math.max(5, Math.floor(limits.headersTimeoutMs / 4)));
  const server = createServer({ connectionsCheckingInterval }, createApp(runtime.deps));
  // Large uploads and downloads stream for as long as they need; a stalled body is cut by bodyTimeout.
  server.requestTimeout = 0;
  server.headersTimeout = limits.headersTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.on('clientError', answerClientError);
  const sockets = attachWebSockets(server, runtime);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? config.port, options.host ?? config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host ?? config.host}:${port}`;
  return {
    server,
    url,
    sockets,
    close: async () => {
      await sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}
