// Reads as data grows (issue 28): seeds one project with `size` workflows and one workflow of it with
// 10 × `size` log entries, events and a tenth as many LLM calls (bulk INSERT ... SELECT), then sends
// sequential requests and prints p50/p99 per read and size, and smallest → largest with the ratio.
//   node bench/api/growth.mjs [--providers sqlite,postgresql] [--sizes 100,10000,100000] [--requests 40]
//                             [--root <another checkout, built>]
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchArgs } from '../lib/args.mjs';
import { devLogin, percentile, repoRoot, startServerProcess } from '../lib/server-process.mjs';

const args = benchArgs();
const providers = (args.providers ?? 'sqlite,postgresql').split(',');
const sizes = (args.sizes ?? '100,10000,100000').split(',').map(Number);
const requests = Number(args.requests ?? 40);
const root = args.root ?? repoRoot;
const require = createRequire(join(repoRoot, 'packages/db/package.json'));

// Every requirement contains "workflow", one in a hundred "narrowly"; none contains "nothing matches".
const list = (query) => (c) => `/svc/api/projects/${c.projectId}/workflows${query(c)}`;
const history = (view) => (c) => `/svc/api/workflows/${c.workflowId}/${view}`;
const READS = {
  plan: history('plan'),
  'list, first page': list(() => ''),
  'search matching all': list(() => '?q=workflow'),
  'search matching 1 %': list(() => '?q=narrowly'),
  // The same search with as many rows shown at every size (at 100 workflows one matches): what grows
  // is only how the matches are found, not the page's size.
  'search matching 1 %, page of 1': list(() => '?q=narrowly&limit=1'),
  'search matching none': list(() => '?q=nothing%20matches'),
  'search, 2 characters': list(() => '?q=zz'),
  // As a client reaches it, following next_cursor: the cursor carries the first page's counts.
  'deep page (90 %)': list((c) => `?cursor=${c.deepCursor}`),
  // A cursor made by hand, without the counts: the rows before it are counted again, up to the cap.
  'deep page, cursor without counts': list((c) => `?cursor=${c.bareDeepCursor}`),
  'log, first page': history('log'),
  'log, page at 90 %': (c) => `/svc/api/workflows/${c.workflowId}/log?cursor=${c.deepLogCursor}`,
  'llm-calls, first page': history('llm-calls'),
};

/** Runs `statements` ([sql, params]) on the database: PostgreSQL ($n parameters) or SQLite (?n). */
async function runSql(provider, databaseUrl, statements) {
  if (provider === 'postgresql') {
    const pg = require('pg');
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      for (const [text, params] of statements) await client.query(text, params);
      await client.query('VACUUM ANALYZE'); // what autovacuum does after a bulk load
    } finally {
      await client.end();
    }
    return;
  }
  const { createClient } = require('@libsql/client');
  const client = createClient({ url: databaseUrl });
  try {
    await client.execute('PRAGMA busy_timeout = 30000');
    for (const [text, params] of statements)
      await client.execute({ sql: text.replace(/\$(\d+)/g, '?$1'), args: params });
    await client.execute('ANALYZE');
  } finally {
    client.close();
  }
}

/** `count` workflows in the project: bench<n> is n seconds old; one in a hundred says "narrowly". */
function seedWorkflows(provider, projectId, userId, count) {
  const series = provider === 'postgresql' ? 'generate_series(1, $3::int) AS g(n)' : 'g';
  const recursive =
    provider === 'postgresql' ? '' : 'WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < $3) ';
  const text = provider === 'postgresql' ? "E'\\n'" : 'char(10)';
  const createdAt =
    provider === 'postgresql'
      ? "timestamp '2026-01-01' - make_interval(secs => n)"
      : "strftime('%Y-%m-%dT%H:%M:%S.000+00:00', '2026-01-01', '-' || n || ' seconds')";
  const now = provider === 'postgresql' ? 'now()' : "strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now')";
  return [
    `${recursive}INSERT INTO workflows (id, project_id, created_by, requirement, title, number, created_at, updated_at)
     SELECT 'bench' || n, $1, $2, 'Benchmark workflow ' || n || ${text} || 'build the feature and test it'
            || CASE WHEN n % 100 = 0 THEN ' narrowly' ELSE '' END, 'Run ' || n, 1000 + n, ${createdAt}, ${now}
       FROM ${series}`,
    [projectId, userId, count],
  ];
}

/**
 * Workflow bench1's history: `entries` log entries, as many events, a tenth as many LLM calls, and a
 * 10-step plan whose plan_step_status events come last (after the whole log, as in a long run).
 */
function seedHistory(provider, entries) {
  const pg = provider === 'postgresql';
  const series = (n) =>
    pg
      ? `FROM generate_series(1, ${n}) AS g(n)`
      : `FROM (WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${n}) SELECT n FROM g)`;
  const now = pg ? 'now()' : "strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now')";
  const steps = JSON.stringify(
    Array.from({ length: 10 }, (_, i) => ({
      title: `Step ${i}`,
      description: `do ${i}`,
      status: i < 5 ? 'done' : i === 5 ? 'running' : 'pending',
    })),
  );
  const stepEvent = (status) =>
    pg
      ? `json_build_object('index', n - 1, 'title', 'Step ' || (n - 1), 'status', ${status})::jsonb`
      : `json_object('index', n - 1, 'title', 'Step ' || (n - 1), 'status', ${status})`;
  const json = (value) => (pg ? `'${value}'::jsonb` : `'${value}'`);
  return [
    [
      `INSERT INTO events (workflow_id, seq, type, data, created_at)
      SELECT 'bench1', n, 'workflow_update', ${json('{"kind":"log_entry","data":{}}')}, ${now} ${series(entries)}`,
    ],
    [
      `INSERT INTO events (workflow_id, seq, type, data, created_at)
      SELECT 'bench1', ${entries} + n, 'plan_step_status', ${stepEvent("CASE WHEN n <= 5 THEN 'done' ELSE 'running' END")}, ${now} ${series(6)}`,
    ],
    [
      `INSERT INTO execution_log_entries (id, workflow_id, seq, step_index, tool_name, tool_input, output, is_error, revision, created_at)
      SELECT 'log' || n, 'bench1', n, n % 10, 'run_command', ${json('{"command":"make test"}')}, 'ok ' || n, false, 0, ${now} ${series(entries)}`,
    ],
    [
      `INSERT INTO llm_call_logs (id, workflow_id, seq, phase, model, prompt_tokens, completion_tokens, latency_ms, attempt, created_at)
      SELECT 'call' || n, 'bench1', n, 'executing', 'm', 100, 10, 50, 1, ${now} ${series(Math.max(1, entries / 10))}`,
    ],
    [
      `INSERT INTO agent_state_snapshots (id, workflow_id, seq, phase, current_step, steps, memo, created_at)
      VALUES ('snap1', 'bench1', 1, 'executing', 5, ${json(steps)}, ${json('[]')}, ${now})`,
    ],
    [
      `INSERT INTO plan_step_times (workflow_id, step_index, started_at, finished_at)
      SELECT 'bench1', n - 1, ${now}, CASE WHEN n <= 5 THEN ${now} END ${series(6)}`,
    ],
    [
      `UPDATE workflows SET last_event_seq = ${entries + 6}, last_update_seq = ${entries}, status = 'running' WHERE id = 'bench1'`,
    ],
  ];
}

/**
 * A GET, sent again once when the kept-alive connection it went out on was closed by the server at that
 * moment (idle through a long seeding, past the server's keep-alive time-out), as a browser does.
 */
async function get(url, cookie) {
  try {
    return await fetch(url, { headers: { cookie } });
  } catch (err) {
    if (err?.cause?.code !== 'UND_ERR_SOCKET') throw err;
    return fetch(url, { headers: { cookie } });
  }
}

async function measure(server, cookie, path) {
  const times = [];
  const statuses = new Map();
  for (let i = 0; i < requests + 5; i++) {
    const started = performance.now();
    const res = await get(`${server.url}${path}`, cookie);
    await res.arrayBuffer();
    if (i >= 5) times.push(performance.now() - started);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  }
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p99: percentile(times, 99),
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
      const started = performance.now();
      await runSql(provider, server.databaseUrl, [
        seedWorkflows(provider, project.id, me.id ?? me.user?.id, size),
        ...seedHistory(provider, size * 10),
      ]);
      console.log(`${provider} ${size}: seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      // The cursors after the row 90% down the list (newest first: bench<n> is n seconds old) and the log.
      const deep = Math.floor(size * 0.9);
      const at = new Date(Date.UTC(2026, 0, 1) - deep * 1000).toISOString();
      const cursor = (key) => Buffer.from(JSON.stringify(key)).toString('base64url');
      const context = {
        projectId: project.id,
        workflowId: 'bench1',
        // The carried total as the server writes it: exact up to 1,000, else 1,001 ("more than 1,000").
        deepCursor: cursor([at, `bench${deep}`, deep + 1, Math.min(size, 1001)]),
        bareDeepCursor: cursor([at, `bench${deep}`]),
        deepLogCursor: cursor([deep * 10]),
      };
      for (const [read, path] of Object.entries(READS)) {
        const figures = await measure(server, cookie, path(context));
        results.push({ provider, size, read, ...figures });
        console.log(
          `${provider} ${size} ${read}: p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms (${figures.statuses})`,
        );
      }
    } finally {
      await server.stop();
    }
  }
}

console.log(`\n(size: workflows in the project; the read workflow has 10 × size log entries and events)`);
console.log('\n| database | read | ' + sizes.map((s) => `p50 / p99 at ${s}`).join(' | ') + ' | p50 ratio |');
console.log('| --- | --- | ' + sizes.map(() => '---').join(' | ') + ' | --- |');
for (const provider of providers) {
  for (const read of Object.keys(READS)) {
    const row = sizes.map((size) => results.find((r) => r.provider === provider && r.size === size && r.read === read));
    const ratio = row.at(-1).p50 / row[0].p50;
    const cells = row.map(
      (r) => `${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} ms${r.statuses.includes('500') ? ` (${r.statuses})` : ''}`,
    );
    console.log(`| ${provider} | ${read} | ${cells.join(' | ')} | ${ratio.toFixed(2)} |`);
  }
}
