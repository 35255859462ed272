import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startApiProcess, TestWorker, workerToken, type ApiProcess } from '@svc/test-kit';

export { expectJson, snapshot, TestWorker, workerToken } from '@svc/test-kit';

/** The API server the web tests drive: the real built server, as its own process. */
export type TestServer = ApiProcess;

/** The web app as `vite build` leaves it (the test task runs after the build task). */
export const WEB_DIST_DIR = resolve(__dirname, '../../dist');

/**
 * The real API server (its built process) on a fresh SQLite database, serving the built web app. Its
 * PUBLIC_URL is the loopback origin it listens on, so pages served from there may open the browser
 * WebSocket. `env` adds to the server's environment (e.g. another sign-in provider).
 */
export async function startWebServer(env: Record<string, string> = {}): Promise<TestServer> {
  if (!existsSync(join(WEB_DIST_DIR, 'index.html'))) {
    throw new Error(`no built web app at ${WEB_DIST_DIR}: run "pnpm --filter @svc/web build" first`);
  }
  return startApiProcess({ provider: 'sqlite', env: { WEB_DIST_DIR, ...env } });
}

/**
 * A worker speaking the real protocol over a real socket: it registers, then heartbeats from the start
 * as the worker CLI does (the server waits for the first before steering workflows assigned to it, and
 * drops a worker that stays silent).
 */
export async function startWorker(
  server: TestServer,
  name: string,
  capacity = 5,
): Promise<{ worker: TestWorker; token: string }> {
  const token = await workerToken(server);
  const worker = await TestWorker.start(server, token, name, capacity);
  worker.keepAlive();
  return { worker, token };
}
