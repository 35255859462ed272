// Starts the built API server (apps/api/dist) as a separate process for benchmarks, on a fresh
// SQLite file or a fresh PostgreSQL database, and stops it again. Clients stay in the bench process.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(repoRoot, 'packages/db/package.json'));
const pg = require('pg');

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function createDatabase(provider, dataDir) {
  if (provider === 'sqlite') return { url: `file:${join(dataDir, 'svc.db')}`, drop: async () => undefined };
  const name = `svc_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Reads VmRSS / VmHWM of a process in MiB (Linux). */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rssMiB: field('VmRSS'), peakMiB: field('VmHWM') };
}

async function untilHealthy(child, url) {
  const deadline = Date.now() + 120_000; // migrations on a fresh database, on a busy machine
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/svc/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error('server did not become healthy');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; clock ticks of 10 ms); 0 once it is gone. */
export function cpuMsOf(pid) {
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * A signed-in svc for the socket benches: a worker token, a project named `name` with `workflows` pending
 * workflows created through REST, and the browser credentials (cookie and origin).
 */
export async function prepareSvcProject(server, { name, workflows }) {
  const cookie = await devLogin(server.url);
  const headers = { cookie, origin: server.url, 'content-type': 'application/json' };
  const post = async (path, body) => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const { token } = await post('/svc/api/token', { scope: 'worker' });
  const project = await post('/svc/api/projects', { name });
  const workflowIds = [];
  for (let i = 0; i < workflows; i++)
    workflowIds.push((await post(`/svc/api/projects/${project.id}/workflows`, { requirement: `${name} ${i}` })).id);
  return { token, workflowIds, browserHeaders: { cookie, origin: server.url } };
}

/** The bare `ws` server of bench/ws (the peer the socket benches compare svc with), on a free port. */
export async function startBareWsServer() {
  const port = await freePort();
  const child = spawn(process.execPath, [join(repoRoot, 'bench/ws/bare-server.mjs'), String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** `entry`: the built server to start (another checkout's, to measure before and after a change). */
export async function startServerProcess({
  provider = 'sqlite',
  env = {},
  nodeArgs = [],
  entry = join(repoRoot, 'apps/api/dist/index.js'),
} = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const database = await createDatabase(provider, dataDir);
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    env: {
      ...process.env,
      NODE_ENV: 'production' === env.NODE_ENV ? 'production' : 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      AUTH_PROVIDER: 'dev',
      ADMIN_USERS: 'bench',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await untilHealthy(child, url);
  return {
    url,
    pid: child.pid,
    databaseUrl: database.url,
    dataDir,
    /** `beforeDrop` reads the database once the server has exited (e.g. its statistics). */
    async stop(beforeDrop = async () => undefined) {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
      await beforeDrop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Signs in through the dev login and returns the cookie header value. */
export async function devLogin(url, login = 'bench') {
  const res = await fetch(`${url}/svc/auth/dev-login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ login }),
  });
  if (!res.ok) throw new Error(`dev login failed: ${res.status}`);
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith('svc_session='))
    .split(';')[0];
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
