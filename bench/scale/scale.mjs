// `pnpm bench scale` (issue 10): the HTTP and WebSocket benchmarks against 1, 2 and 3 API replicas on
// one PostgreSQL database behind a real haproxy (packages/test-kit startLoadBalancer: round-robin, no
// stickiness), side by side in one run; prints throughput per replica count and the scaling ratio.
//   node bench/scale/scale.mjs [--seconds 10] [--replicas 1,2,3] [--concurrency 64] [--ws 10x100]
// HTTP load comes from wrk (Debian's `wrk`, a C client in its own process); the WebSocket clients are
// bench/ws/load-clients.mjs in this process. Every client goes through the balancer, so a worker's
// updates reach browsers on other replicas only through PostgreSQL (docs/scale-out.md).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { devLogin, percentile, repoRoot } from '../lib/server-process.mjs';
import { connectBrowser, connectWorker, stream } from '../ws/load-clients.mjs';
import { benchArgs } from '../lib/args.mjs';

const args = benchArgs();
const seconds = Number(args.seconds ?? 10);
const replicaCounts = (args.replicas ?? '1,2,3').split(',').map(Number);
const concurrency = Number(args.concurrency ?? 64);
const [, wsWorkers, wsBrowsers] = /^(\d+)x(\d+)$/.exec(args.ws ?? '10x100').map(Number);
const require = createRequire(join(repoRoot, 'package.json'));
// The replicas (one PostgreSQL database, shared signing key) behind haproxy, as the tests start them.
const { startBalancedReplicas } = require(join(repoRoot, 'packages/test-kit'));

/** Through the balancer: a user, a worker token, a project with `workflows` pending workflows. */
async function seed(url, workflows) {
  const cookie = await devLogin(url, 'root'); // an administrator: it mints the worker token
  const headers = { cookie, origin: url, 'content-type': 'application/json' };
  const post = async (path, body) => {
    const res = await fetch(`${url}/svc/api${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const { token } = await post('/token', { scope: 'worker' });
  const project = await post('/projects', { name: 'scale bench' });
  const ids = [];
  for (let i = 0; i < workflows; i++)
    ids.push((await post(`/projects/${project.id}/workflows`, { requirement: `scale bench ${i}` })).id);
  return { cookie, token, projectId: project.id, workflowIds: ids };
}

/**
 * CPU seconds used so far by these processes (Linux /proc, clock ticks of 1/100 s): on a machine shared
 * with other work, throughput moves with the neighbours, CPU time per request much less.
 */
function cpuSeconds(pids) {
  let ticks = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
  }
  return ticks / 100;
}

const toMs = (value, unit) => Number(value) * { us: 0.001, ms: 1, s: 1000 }[unit];

/** wrk against one URL: requests/s, latency percentiles, server CPU per request, after a warm-up pass. */
function wrk(url, cookie, serverPids) {
  const run = (duration) => {
    const result = spawnSync(
      'wrk',
      ['-t2', `-c${concurrency}`, `-d${duration}s`, '--latency', '-H', `cookie: ${cookie}`, url],
      { encoding: 'utf8' },
    );
    if (result.error) throw new Error(`wrk: ${result.error.message} (apt-get install wrk)`);
    if (result.status !== 0) throw new Error(`wrk failed: ${result.stderr}`);
    return result.stdout;
  };
  // As long as the measurement: each replica compiles and caches its own hot paths, and with 3 of
  // them each sees a third of the warm-up traffic.
  run(seconds);
  const cpuBefore = cpuSeconds(serverPids);
  const out = run(seconds);
  const cpu = cpuSeconds(serverPids) - cpuBefore;
  const latency = (p) => {
    const match = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(out);
    return match ? toMs(match[1], match[2]) : NaN;
  };
  const bad = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors: (.*)/.exec(out)?.[1] ?? null;
  if (bad || socketErrors) console.error(`wrk ${url}: ${bad} non-2xx responses; socket errors: ${socketErrors}`);
  const requests = Number(/(\d+) requests in/.exec(out)[1]);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]),
    p50: latency(50),
    p99: latency(99),
    cpuMsPerRequest: (1000 * cpu) / Math.max(1, requests),
    errors: bad,
  };
}

/** bench/ws: `wsWorkers` workers and `wsBrowsers` browsers (spread over the workflows), all through the balancer. */
async function websocketLoad(url, seeded) {
  const workers = [];
  // One at a time, so each worker (capacity 1) is handed exactly one of the pending workflows.
  for (let i = 0; i < wsWorkers; i++) workers.push(await connectWorker(url, seeded.token, `scale-${i}`));
  const browsers = [];
  // Consecutive browsers watch the same workflow: the balancer spreads each workflow's watchers over
  // the replicas, so most deliveries cross from the worker's replica to another one.
  const perWorkflow = Math.ceil(wsBrowsers / wsWorkers);
  for (let i = 0; i < wsBrowsers; i++) {
    const watched = workers[Math.floor(i / perWorkflow)].workflowId;
    browsers.push(await connectBrowser(url, { cookie: seeded.cookie, origin: url }, watched));
  }
  const result = await stream(workers, browsers, { warmupMs: 3000, measureMs: seconds * 1000 });
  for (const ws of [...workers.map((w) => w.ws), ...browsers]) ws.terminate();
  result.latencies.sort((a, b) => a - b);
  return {
    updates: result.acked / result.seconds,
    deliveries: result.received / result.seconds,
    // Every update is delivered to wsBrowsers / wsWorkers browsers: the share that arrived.
    delivered: result.received / Math.max(1, result.acked * (wsBrowsers / wsWorkers)),
    p99: percentile(result.latencies, 99),
    errors: result.errors,
  };
}

const rows = [];
for (const count of replicaCounts) {
  // Its browsers are one signed-in user: the per-user stream cap (32 by default) would refuse most of them.
  const set = await startBalancedReplicas(count, { env: { LOG_LEVEL: 'warn', EVENT_STREAMS_PER_USER: '100000' } });
  try {
    const seeded = await seed(set.url, wsWorkers);
    // The replicas and haproxy: what serving costs.
    const serverPids = [...set.replicas.replicas.map((r) => r.process.pid), set.balancer.process.pid];
    const projects = wrk(`${set.url}/svc/api/projects`, seeded.cookie, serverPids);
    const workflow = wrk(`${set.url}/svc/api/workflows/${seeded.workflowIds[0]}`, seeded.cookie, serverPids);
    const ws = await websocketLoad(set.url, seeded);
    const row = { replicas: count, projects, workflow, ws };
    rows.push(row);
    console.error(JSON.stringify(row));
  } finally {
    await set.close();
  }
}

const f0 = (n) => n.toFixed(0);
const f1 = (n) => n.toFixed(1);
const f2 = (n) => n.toFixed(2);
console.log(
  `\n${cpus().length} CPUs (${availableParallelism()} usable), load average ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')}; PostgreSQL; haproxy round-robin; ${seconds} s per measurement`,
);
console.log(`HTTP: wrk, ${concurrency} connections; WebSocket: ${wsWorkers} workers x ${wsBrowsers} browsers\n`);
console.log(
  '| replicas | GET /projects req/s | p99 ms | CPU ms/req | GET /workflows/{id} req/s | p99 ms | CPU ms/req | ws updates/s | ws deliveries/s | delivered | p99 ms |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows)
  console.log(
    `| ${r.replicas} | ${f0(r.projects.rps)} | ${f1(r.projects.p99)} | ${f2(r.projects.cpuMsPerRequest)} | ${f0(r.workflow.rps)} | ${f1(r.workflow.p99)} | ${f2(r.workflow.cpuMsPerRequest)} | ${f0(r.ws.updates)} | ${f0(r.ws.deliveries)} | ${(100 * r.ws.delivered).toFixed(0)} % | ${f1(r.ws.p99)} |`,
  );
const one = rows.find((r) => r.replicas === 1);
for (const r of rows.filter((row) => row.replicas > 1 && one)) {
  const ratio = (pick) => (pick(r) / pick(one)).toFixed(2);
  console.log(
    `| ${r.replicas} ÷ 1 | ${ratio((x) => x.projects.rps)} | | | ${ratio((x) => x.workflow.rps)} | | | ${ratio((x) => x.ws.updates)} | ${ratio((x) => x.ws.deliveries)} | | |`,
  );
}
console.log(JSON.stringify({ cpus: cpus().length, seconds, concurrency, rows }));
