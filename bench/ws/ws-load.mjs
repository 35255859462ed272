// Benchmark (issue: live updates and worker dispatch). N simulated workers on loopback each stream
// log_entry updates for their own workflow as fast as acks allow (the worker's update window in flight), M browsers watch the
// workflows (spread evenly, or all on one: "hot"). Reports updates/s stored and acknowledged and the
// p50/p99 latency from a worker's send to a browser's receipt, for svc on SQLite and PostgreSQL
// (apps/api/dist, started as a child process) and for bench/ws/bare-server.mjs.
// Each case runs --rounds times with the targets' order rotating between rounds, and the summary gives
// the spread over the rounds of each target, its ratio to bare in the same round, and p99 (decision 0069).
// Usage: node bench/ws/ws-load.mjs [--seconds 10] [--window 64] [--targets bare,sqlite,postgresql]
//          [--cases 1x1,10x100,10x100hot,10x100@2000] [--rounds 3] [--hog] [--profile <dir>]
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  cpuMsOf,
  memoryOf,
  percentile,
  prepareSvcProject,
  repoRoot,
  startBareWsServer,
  startServerProcess,
} from '../lib/server-process.mjs';
import { connectBrowser, connectWorker, DEFAULT_WINDOW, stream } from './load-clients.mjs';
import { growth, storedBytes } from './storage.mjs';
import { benchArgs } from '../lib/args.mjs';
import { conditions, formatSpread, loadRecorder, rotate, roundsOptions, startCpuHog } from '../lib/rounds.mjs';

const args = benchArgs();
const measureMs = Number(args.seconds ?? 10) * 1000;
const warmupMs = 3000;

const targets = (args.targets ?? 'bare,sqlite,postgresql').split(',');
const options = roundsOptions(args);
const cases = (args.cases ?? '1x1,10x100,10x100hot').split(',').map((c) => {
  // NxM[hot][@rate]: `@2000` paces the workers to 2,000 updates/s in all (RSS at a given load).
  const [, n, m, hot, rate] = /^(\d+)x(\d+)(hot)?(?:@(\d+))?$/.exec(c);
  return { name: c, n: Number(n), m: Number(m), hot: Boolean(hot), rate: rate ? Number(rate) : undefined };
});
const require = createRequire(join(repoRoot, 'apps/api/package.json'));
const window = Number(args.window ?? DEFAULT_WINDOW);
// --profile <dir>: the svc server writes a V8 CPU profile there (to see where a run's time goes).
// The per-worker message rate limit (WS_WORKER_MESSAGES_PER_SECOND, 1000/s by default) is a policy, not
// a capacity: lifted so the bench measures what the server can store (the bare server has no limit).
// Its browsers are one signed-in user, so the per-user stream cap (32 by default) is lifted likewise.
const serverEnv = {
  WS_WORKER_MESSAGES_PER_SECOND: '1000000',
  EVENT_STREAMS_PER_USER: '100000',
  ...(process.env.BENCH_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS } : {}),
  ...(args.profile
    ? {
        NODE_OPTIONS: `--require ${join(repoRoot, 'bench/ws/cpu-profile-hook.cjs')}`,
        SVC_CPU_PROFILE_DIR: args.profile,
      }
    : {}),
};

async function runCase(target, testCase) {
  const bare = target === 'bare';
  const server = bare ? await startBareWsServer() : await startServerProcess({ provider: target, env: serverEnv });
  try {
    const svc = bare ? null : await prepareSvcProject(server, { name: 'ws bench', workflows: testCase.n });
    const { workers, browsers } = await connectClients(server, svc, testCase);
    const before = svc ? await storedBytes(server.databaseUrl) : null;
    let rssMiB = 0;
    const cpuMs = [];
    const result = await stream(workers, browsers, {
      warmupMs,
      measureMs,
      window,
      rate: testCase.rate,
      onMeasure: () => {
        cpuMs.push(cpuMsOf(server.pid));
        rssMiB = Math.max(rssMiB, memoryOf(server.pid).rssMiB);
      },
    });
    // Server CPU per acknowledged update: steadier than throughput when other processes take the cores.
    const cpuMsPerUpdate = (cpuMs.at(-1) - cpuMs[0]) / Math.max(1, result.acked);
    for (const ws of [...workers.map((w) => w.ws), ...browsers]) ws.terminate();
    const storage = svc ? await storageGrowth(server, before, result) : null;
    result.latencies.sort((a, b) => a - b);
    return {
      target,
      case: testCase.name,
      updatesPerSecond: Math.round(result.acked / result.seconds),
      deliveriesPerSecond: Math.round(result.received / result.seconds),
      p50: percentile(result.latencies, 50),
      p99: percentile(result.latencies, 99),
      errors: result.errors,
      rssMiB: Math.round(rssMiB),
      cpuMsPerUpdate,
      ...storage,
    };
  } finally {
    await server.stop();
  }
}

/** N workers (each with its own workflow) and M browsers watching them, spread evenly or all on the first ("hot"). */
async function connectClients(server, svc, testCase) {
  const workers = [];
  // One at a time, so each svc worker (capacity 1) is handed exactly one workflow.
  for (let i = 0; i < testCase.n; i++)
    workers.push(await connectWorker(server.url, svc?.token, `bench-${i}`, svc ? undefined : `wf-${i}`));
  const browsers = [];
  for (let i = 0; i < testCase.m; i++) {
    const watched = workers[testCase.hot ? 0 : i % workers.length].workflowId;
    browsers.push(await connectBrowser(server.url, svc?.browserHeaders ?? {}, watched));
  }
  return { workers, browsers };
}

/** Updates stored, and the database's growth per payload byte streamed, in all and per table. */
async function storageGrowth(server, before, result) {
  const { createDb } = require('@svc/db');
  const { db, close } = await createDb({ url: server.databaseUrl, poolSize: 1 });
  const stored = await db.workerUpdate.count();
  await close();
  const after = await storedBytes(server.databaseUrl);
  const payload = stored * (result.payloadBytes / result.sent);
  return {
    stored,
    perPayloadByte: (after.total - before.total) / payload,
    tables: Object.fromEntries(growth(before, after).map(([name, bytes]) => [name, +(bytes / payload).toFixed(2)])),
  };
}

const rows = [];
const hog = options.hog ? startCpuHog() : null;
const load = loadRecorder();
try {
  for (const testCase of cases) {
    for (let round = 0; round < options.rounds; round++) {
      for (const target of rotate(targets, round)) {
        const row = { round, ...(await runCase(target, testCase)) };
        rows.push(row);
        console.error(JSON.stringify(row));
      }
    }
  }
} finally {
  await hog?.stop();
}
const bareOf = (r) => rows.find((b) => b.case === r.case && b.round === r.round && b.target === 'bare');
console.log(
  '\n| case (N workers x M browsers) | round | server | updates/s stored+acked | x bare | deliveries/s | p50 ms | p99 ms | server RSS MiB | bytes stored / payload byte |',
);
console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const label = r.target === 'bare' ? 'bare ws (no storage)' : `svc, ${r.target}`;
  const bare = bareOf(r);
  const ratio = bare ? (r.updatesPerSecond / bare.updatesPerSecond).toFixed(2) : '';
  console.log(
    `| ${r.case} | ${r.round + 1} | ${label} | ${r.updatesPerSecond} | ${ratio} | ${r.deliveriesPerSecond} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.rssMiB} | ${r.perPayloadByte?.toFixed(1) ?? ''} |`,
  );
}
console.log(`\n${conditions(options, load)}; ranges are min–max over the rounds, ratios to bare within a round\n`);
console.log(
  '| case | server | updates/s | x bare | p50 ms | p99 ms | p99 / bare p99 | server CPU ms per update | x bare | RSS MiB |',
);
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const testCase of cases) {
  for (const target of targets) {
    const of = rows.filter((r) => r.case === testCase.name && r.target === target);
    const range = (pick, digits = 0) => formatSpread(of.map(pick), digits);
    const versusBare = (pick, digits) => range((r) => pick(r) / (bareOf(r) ? pick(bareOf(r)) : NaN), digits);
    const cells = [
      testCase.name,
      target === 'bare' ? 'bare ws' : `svc, ${target}`,
      range((r) => r.updatesPerSecond),
      versusBare((r) => r.updatesPerSecond, 2),
      range((r) => r.p50, 1),
      range((r) => r.p99, 1),
      versusBare((r) => r.p99, 2),
      range((r) => r.cpuMsPerUpdate, 3),
      versusBare((r) => r.cpuMsPerUpdate, 1),
      range((r) => r.rssMiB),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
}
