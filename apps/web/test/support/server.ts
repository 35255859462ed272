import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startTestServer, type TestServer } from '../../../api/test/support/server';

export type { TestServer } from '../../../api/test/support/server';
import { TestWorker, workerToken } from '../../../api/test/ws/clients';

export { TestWorker, workerToken, snapshot } from '../../../api/test/ws/clients';

/** The web app as `vite build` leaves it (the test task runs after the build task). */
export const WEB_DIST_DIR = resolve(__dirname, '../../dist');

/**
 * The real API server on a fresh SQLite database, serving the built web app. The page is served from
 * the random port the server listens on, so that origin is allowed to open the browser WebSocket
 * (in production PUBLIC_URL names it).
 */
export async function startWebServer(): Promise<TestServer> {
  if (!existsSync(join(WEB_DIST_DIR, 'index.html'))) {
    throw new Error(`no built web app at ${WEB_DIST_DIR}: run "pnpm --filter @svc/web build" first`);
  }
  const server = await startTestServer('sqlite', { WEB_DIST_DIR });
  server.deps.config.allowedOrigins.push(server.url);
  return server;
}

/** The JSON body of a response that must have the given status. */
export async function expectJson<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/**
 * A worker speaking the real protocol over a real socket: it registers, then sends its first heartbeat
 * at once, as the worker CLI does (the server waits for it before steering workflows assigned to it).
 */
export async function startWorker(
  server: TestServer,
  name: string,
  capacity = 5,
): Promise<{ worker: TestWorker; token: string }> {
  const token = await workerToken(server);
  const worker = await TestWorker.start(server, token, name, capacity);
  worker.send({ type: 'heartbeat' });
  return { worker, token };
}
