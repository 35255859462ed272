import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@svc/db/testing';
import { INHERITED_PATH } from './env';
import { request, signIn, type TestRequestInit } from './http';
import { eventually, StopWaiting } from './poll';
import { spawnProcess, type ManagedProcess, type ProcessExit } from './process';

export type DbProvider = 'sqlite' | 'postgresql';

/** The repository's root: the nearest directory above this file holding pnpm-workspace.yaml. */
export function repoRoot(from = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no pnpm-workspace.yaml above ${from}`);
  }
}

/** The built API server's entry point (the test task depends on `@svc/api#build`). */
export const apiEntry = (): string => path.join(repoRoot(), 'apps/api/dist/index.js');

/** A port nobody listens on right now, on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface ApiProcessOptions {
  provider?: DbProvider;
  /** Extra environment of the server (wins over the defaults below). */
  env?: Record<string, string>;
  /** The API's built entry point; `apps/api/dist/index.js` of this repository by default. */
  entry?: string;
  /**
   * A database and data directory owned by the caller (replicas share them): used as they are, and
   * left in place by `close`.
   */
  shared?: { databaseUrl: string; dataDir: string };
}

export interface ApiProcess {
  url: string;
  provider: DbProvider;
  dataDir: string;
  databaseUrl: string;
  /** The server's current process (a new one after `restart`). */
  readonly process: ManagedProcess;
  /** fetch against the server with an optional credential (cookie string or bearer token). */
  request(path: string, init?: TestRequestInit): Promise<Response>;
  /** Signs in through the real dev login and returns the session cookie (`svc_session=…`). */
  login(login: string): Promise<string>;
  /** Stops the server process only (the database and data directory stay). */
  stop(signal?: NodeJS.Signals): Promise<ProcessExit>;
  /** Starts the server again (stopping it first if it runs) on the same port, database and data directory. */
  restart(): Promise<void>;
  /** Stops the server, drops its database and removes its data directory. */
  close(): Promise<void>;
}

const QUIET_LEVELS = new Set(['warn', 'error', 'fatal', 'silent']);

/**
 * The real, built API server as its own process: a fresh test database of the given kind, its own
 * data directory, dev login with `root` an administrator, a free loopback port. Resolves once the
 * server says it is listening (its `svc listening` log line), or answers its health endpoint when its
 * log level hides that line.
 */
export async function startApiProcess(options: ApiProcessOptions = {}): Promise<ApiProcess> {
  const provider = options.provider ?? 'sqlite';
  const entry = options.entry ?? apiEntry();
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`pnpm turbo run build --filter @svc/api\` first`);
  const dataDir = options.shared?.dataDir ?? mkdtempSync(path.join(tmpdir(), 'svc-api-process-'));
  const database = options.shared
    ? { url: options.shared.databaseUrl, drop: async () => undefined }
    : await createTestDatabase(provider);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: url,
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    AUTH_PROVIDER: 'dev',
    ADMIN_USERS: 'root',
    LOG_LEVEL: 'info',
    // A client sending on a keep-alive connection just as the server closes it idle gets ECONNRESET: on
    // a loaded machine a test's pause between requests can outlast the 5 s default.
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '120000',
    ...options.env,
  };
  let child: ManagedProcess;
  const launch = async () => {
    child = spawnProcess('api', process.execPath, [entry], {
      cwd: dataDir,
      env: { PATH: INHERITED_PATH, HOME: dataDir, ...env },
    });
    const launched = child;
    if (QUIET_LEVELS.has(env.LOG_LEVEL ?? '')) {
      await eventually(
        async () => {
          if (launched.exit)
            throw new StopWaiting(`the API server exited (${JSON.stringify(launched.exit)})\n${launched.tail()}`);
          return (await fetch(`${url}/svc/api/health`).catch(() => null))?.status === 200;
        },
        { what: 'the API server to answer /svc/api/health', detail: () => launched.tail() },
      );
    } else {
      await launched.nextLine((line) => line.includes('"msg":"svc listening"'));
    }
  };
  const close = async () => {
    await child?.stop('SIGTERM');
    if (options.shared) return;
    await database.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await launch();
  } catch (err) {
    await close();
    throw err;
  }
  return {
    url,
    provider,
    dataDir,
    databaseUrl: database.url,
    get process() {
      return child;
    },
    request: (p, init) => request(url, p, init),
    login: (login) => signIn(url, login),
    stop: (signal = 'SIGTERM') => child.stop(signal),
    async restart() {
      await child.stop('SIGTERM');
      await launch();
    },
    close,
  };
}
