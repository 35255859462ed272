// Benchmark (issue 28): workflows created per second through POST /projects/{id}/workflows, all in one
// project, at 1, 4 and 16 requests in flight, on SQLite and PostgreSQL. A fresh server per level runs a
// warm-up and then `--repeats` rounds of `--creates` creates; on PostgreSQL it also reports the
// transactions rolled back and the sessions opened per create (pg_stat_database, read after the server
// has exited, when every backend has flushed its statistics).
//   node bench/api/create-rate.mjs [--creates 200] [--repeats 3] [--concurrency 1,4,16]
//                                  [--providers sqlite,postgresql]
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { benchArgs } from '../lib/args.mjs';
import { devLogin, POSTGRES_URL, repoRoot, startServerProcess } from '../lib/server-process.mjs';

const args = benchArgs();
const creates = Number(args.creates ?? 200);
const repeats = Number(args.repeats ?? 3);
const levels = (args.concurrency ?? '1,4,16').split(',').map(Number);
const providers = (args.providers ?? 'sqlite,postgresql').split(',');
const pg = createRequire(join(repoRoot, 'packages/db/package.json'))('pg');

async function post(server, cookie, path, body) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { cookie, origin: server.url, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** `count` creates with `concurrency` in flight; returns creates per second. */
async function round(server, cookie, projectId, count, concurrency) {
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      const i = next++;
      await post(server, cookie, `/svc/api/projects/${projectId}/workflows`, { requirement: `Bench run ${i}` });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return count / ((performance.now() - started) / 1000);
}

/** The bench database's counters, once no backend of it is left (an exiting backend flushes its statistics). */
async function databaseStats(databaseUrl) {
  const name = new URL(databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query(
      'SELECT xact_commit::int AS commits, xact_rollback::int AS rollbacks, sessions::int AS sessions FROM pg_stat_database WHERE datname = $1',
      [name],
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

const fmt = (n) => n.toFixed(1);
console.log(`creates per second, ${creates} creates per round, ${repeats} rounds, one project`);
for (const provider of providers) {
  for (const concurrency of levels) {
    const server = await startServerProcess({ provider });
    let rates = [];
    let stats = null;
    try {
      const cookie = await devLogin(server.url);
      const project = await post(server, cookie, '/svc/api/projects', { name: `create rate ${concurrency}` });
      await round(server, cookie, project.id, 20, concurrency);
      for (let r = 0; r < repeats; r++) rates.push(await round(server, cookie, project.id, creates, concurrency));
    } finally {
      await server.stop(async () => {
        if (provider === 'postgresql') stats = await databaseStats(server.databaseUrl);
      });
    }
    rates = rates.sort((a, b) => a - b);
    const total = 20 + creates * repeats;
    const pgPart = stats
      ? `  rollbacks/create ${(stats.rollbacks / total).toFixed(2)}  sessions/create ${(stats.sessions / total).toFixed(2)}`
      : '';
    console.log(
      `${provider.padEnd(10)} c=${String(concurrency).padEnd(3)} median ${fmt(rates[Math.floor(rates.length / 2)])}/s` +
        `  (min ${fmt(rates[0])}, max ${fmt(rates.at(-1))})${pgPart}`,
    );
  }
}
