import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { spawnProcess, type ManagedProcess } from './e2e-process';
import { waitUntil } from './e2e-wait';

const run = promisify(execFile);

export const REPO_ROOT = path.resolve(__dirname, '../../../..');
const API_DIR = path.join(REPO_ROOT, 'apps/api');
/** The PostgreSQL server the e2e run creates its database on (the same variable as the API's tests). */
const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export type DbKind = 'sqlite' | 'postgresql';

export interface ApiServer {
  url: string;
  dataDir: string;
  databaseUrl: string;
  process: ManagedProcess;
  close(): Promise<void>;
}

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

async function psql(url: string, sql: string): Promise<void> {
  await run('psql', [url, '-v', 'ON_ERROR_STOP=1', '-qc', sql]);
}

/** A fresh database: a SQLite file in the data directory, or a new PostgreSQL database dropped on close. */
async function createDatabase(kind: DbKind, dataDir: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === 'sqlite') return { url: `file:${path.join(dataDir, 'svc.db')}`, drop: async () => undefined };
  const name = `svc_e2e_${randomBytes(6).toString('hex')}`;
  await psql(POSTGRES_URL, `CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => psql(POSTGRES_URL, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/**
 * The real API server as its own process, from the current sources (tsx, the "development" export
 * condition), so the run never depends on a stale build: dev login, `root` an administrator, a
 * fresh database, its own data directory and a free port.
 */
export async function startApiServer(options: { db?: DbKind; env?: Record<string, string> } = {}): Promise<ApiServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-e2e-api-'));
  const database = await createDatabase(options.db ?? 'sqlite', dataDir);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnProcess('api', process.execPath, ['--conditions=development', '--import', 'tsx', 'src/index.ts'], {
    cwd: API_DIR,
    env: {
      PATH: process.env.PATH,
      HOME: dataDir,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      AUTH_PROVIDER: 'dev',
      ADMIN_USERS: 'root',
      LOG_LEVEL: 'warn',
      ...options.env,
    },
  });
  const close = async () => {
    await child.stop('SIGTERM');
    await database.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUntil(
      async () => {
        if (child.exit) throw new Error(`the API server exited (${JSON.stringify(child.exit)})\n${child.tail()}`);
        const res = await fetch(`${url}/svc/api/health`).catch(() => null);
        return res?.status === 200;
      },
      {
        what: 'the API server to answer /svc/api/health',
        timeoutMs: 60_000,
        intervalMs: 100,
        detail: () => child.tail(),
      },
    );
  } catch (err) {
    await close();
    throw err;
  }
  return { url, dataDir, databaseUrl: database.url, process: child, close };
}
