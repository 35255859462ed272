import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The metrics text to serve (one process's registry, or a whole cluster's). */
export type RenderMetrics = () => Promise<{ contentType: string; body: string }>;

export interface MetricsListener {
  server: Server;
  /** `http://host:port` (IPv6 hosts bracketed) */
  url: string;
  close(): Promise<void>;
}

/**
 * A listener serving only `GET /metrics` (HEAD too), without a token: bind it where only the scraper
 * reaches (loopback, a private network). Anything else is 404; a failed render is 500.
 */
export async function startMetricsListener(
  address: { host: string; port: number },
  render: RenderMetrics,
): Promise<MetricsListener> {
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
    close: () =>
      new Promise<void>((resolve) => {
        // a scraper's keep-alive connection would hold the close open
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
