import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import type { DbProvider } from '@svc/db';
import { request as kitRequest, signIn, type TestRequestInit } from '@svc/test-kit';
import { configFromEnv, type Config } from '../../src/config';
import { buildRuntime, type Runtime, type RuntimeOptions } from '../../src/bootstrap';
import { startServer, type RunningServer } from '../../src/server';
import type { AppDeps } from '../../src/deps';

export { TEST_PROVIDERS } from '@svc/db/testing';

export interface TestServer {
  url: string;
  deps: AppDeps;
  runtime: Runtime;
  dataDir: string;
  /** Signs in through the real dev login and returns a session cookie header value. */
  login(login: string): Promise<string>;
  /** fetch against the server with an optional credential (cookie string or bearer token). */
  request(path: string, init?: TestRequestInit): Promise<Response>;
  close(): Promise<void>;
  /** the WebSocket hubs (e.g. to re-validate browser sockets now instead of on their timer) */
  sockets: RunningServer['sockets'];
}

/** A test installation's settings on `databaseUrl` and `dataDir`: dev sign-in, `root` administrator, silent. */
export function testConfig(databaseUrl: string, dataDir: string, env: Record<string, string> = {}): Config {
  return configFromEnv({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    AUTH_PROVIDER: 'dev',
    ADMIN_USERS: 'root',
    LOG_LEVEL: 'silent',
    // A client sending on a keep-alive connection just as the server closes it idle gets ECONNRESET: on
    // a loaded machine a test's pause between requests can outlast the 5 s default.
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '120000',
    ...env,
  });
}

/** The real server on a fresh database of the given kind, listening on a random loopback port. */
export async function startTestServer(
  provider: DbProvider,
  env: Record<string, string> = {},
  options: RuntimeOptions = {},
  logger: Logger = pino({ level: 'silent' }),
): Promise<TestServer> {
  const database: TestDatabase = await createTestDatabase(provider);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-api-test-'));
  const config = testConfig(database.url, dataDir, {
    // Most tests take work back from a disconnected worker at once; lease tests set their own.
    WORKER_LEASE_SECONDS: '0',
    ...env,
  });
  const runtime = await buildRuntime(config, logger, options);
  const running: RunningServer = await startServer(runtime, { port: 0, host: '127.0.0.1' });
  // The port is only known now; the config is read per request, so the real origin can be set here.
  if (!env.PUBLIC_URL) runtime.deps.config.publicUrl = running.url;

  const request: TestServer['request'] = (path, init) => kitRequest(running.url, path, init);

  return {
    url: running.url,
    deps: runtime.deps,
    runtime,
    dataDir,
    request,
    login: (login) => signIn(running.url, login),
    sockets: running.sockets,
    async close() {
      await running.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The server's database handles a dispatch is built from (`buildDispatch`): Prisma, the driver reader, the provider. */
export const driverOf = ({ runtime }: TestServer) => ({
  db: runtime.dbHandle.db,
  reader: runtime.dbHandle.reader,
  provider: runtime.dbHandle.provider,
});
