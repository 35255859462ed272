// The workflow list as a project grows (issue 28): seeds 100 and 100,000 workflows into one project
// (one INSERT ... SELECT each), then sends sequential requests and prints p50/p90 per read and size.
//   node bench/api/list-growth.mjs [--providers sqlite,postgresql] [--sizes 100,100000] [--requests 40]
//                                  [--root <another checkout, built>]
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchArgs } from '../lib/args.mjs';
import { devLogin, percentile, repoRoot, startServerProcess } from '../lib/server-process.mjs';

const args = benchArgs();
const providers = (args.providers ?? 'sqlite,postgresql').split(',');
const sizes = (args.sizes ?? '100,100000').split(',').map(Number);
const requests = Number(args.requests ?? 40);
const root = args.root ?? repoRoot;
const require = createRequire(join(repoRoot, 'packages/db/package.json'));

// Every requirement contains "workflow"; none contains "nothing matches".
const READS = {
  'first page': () => '',
  'search matching all': () => '?q=workflow',
  'search matching none': () => '?q=nothing%20matches',
  'deep page (90%)': (deepCursor) => `?cursor=${deepCursor}`,
};

async function seed(provider, databaseUrl, projectId, userId, count) {
  if (provider === 'postgresql') {
    const pg = require('pg');
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO workflows (id, project_id, created_by, requirement, title, number, created_at, updated_at)
         SELECT 'bench' || n, $1, $2, 'Benchmark workflow ' || n || E'\nbuild the feature and test it', 'Run ' || n,
                1000 + n, timestamp '2026-01-01' - make_interval(secs => n), now()
           FROM generate_series(1, $3::int) AS n`,
        [projectId, userId, count],
      );
      await client.query('VACUUM ANALYZE workflows'); // what autovacuum does after a bulk load
    } finally {
      await client.end();
    }
    return;
  }
  const { createClient } = require('@libsql/client');
  const client = createClient({ url: databaseUrl });
  try {
    await client.execute('PRAGMA busy_timeout = 30000');
    await client.execute({
      sql: `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?3)
            INSERT INTO workflows (id, project_id, created_by, requirement, title, number, created_at, updated_at)
            SELECT 'bench' || n, ?1, ?2, 'Benchmark workflow ' || n || char(10) || 'build the feature and test it',
                   'Run ' || n, 1000 + n, strftime('%Y-%m-%dT%H:%M:%S.000+00:00', '2026-01-01', '-' || n || ' seconds'),
                   strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now')
              FROM g`,
      args: [projectId, userId, count],
    });
  } finally {
    client.close();
  }
}

async function measure(server, cookie, path) {
  const times = [];
  const statuses = new Map();
  for (let i = 0; i < requests + 5; i++) {
    const started = performance.now();
    const res = await fetch(`${server.url}${path}`, { headers: { cookie } });
    await res.arrayBuffer();
    if (i >= 5) times.push(performance.now() - started);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  }
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p90: percentile(times, 90),
    statuses: [...statuses].map(([s, n]) => `${s}x${n}`).join(' '),
  };
}

const results = [];
for (const provider of providers) {
  for (const size of sizes) {
    const server = await startServerProcess({ provider, entry: join(root, 'apps/api/dist/index.js') });
    try {
      const cookie = await devLogin(server.url, 'bench');
      const call = async (method, path, json) => {
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: { cookie, origin: server.url, 'content-type': 'application/json' },
          body: json && JSON.stringify(json),
        });
        if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
        return res.json();
      };
      const project = await call('POST', '/svc/api/projects', { name: 'Growth' });
      const me = await call('GET', '/svc/api/me');
      await seed(provider, server.databaseUrl, project.id, me.id ?? me.user?.id, size);
      // The cursor after the row 90% down the list (newest first: bench<n> is n seconds old).
      const deep = Math.floor(size * 0.9);
      const at = new Date(Date.UTC(2026, 0, 1) - deep * 1000).toISOString();
      const deepCursor = Buffer.from(JSON.stringify([at, `bench${deep}`])).toString('base64url');
      for (const [read, query] of Object.entries(READS)) {
        const path = `/svc/api/projects/${project.id}/workflows${query(deepCursor)}`;
        const figures = await measure(server, cookie, path);
        results.push({ provider, size, read, ...figures });
        console.log(
          `${provider} ${size} ${read}: p50 ${figures.p50.toFixed(1)} ms, p90 ${figures.p90.toFixed(1)} ms (${figures.statuses})`,
        );
      }
    } finally {
      await server.stop();
    }
  }
}

console.log('\n| database | read | ' + sizes.map((s) => `p50 at ${s}`).join(' | ') + ' | ratio |');
console.log('| --- | --- | ' + sizes.map(() => '---').join(' | ') + ' | --- |');
for (const provider of providers) {
  for (const read of Object.keys(READS)) {
    const row = sizes.map((size) => results.find((r) => r.provider === provider && r.size === size && r.read === read));
    const ratio = row.at(-1).p50 / row[0].p50;
    const cells = row.map((r) => `${r.p50.toFixed(1)} ms${r.statuses.includes('500') ? ` (${r.statuses})` : ''}`);
    console.log(`| ${provider} | ${read} | ${cells.join(' | ')} | ${ratio.toFixed(2)} |`);
  }
}
