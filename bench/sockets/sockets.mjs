// Benchmark (issue 28, "connections, one process"): svc's sockets beside the bare `ws` server
// (bench/ws/bare-server.mjs) in the same run, round after round: memory per idle subscribed browser,
// time to connect and subscribe 1,000 / 5,000 / 10,000 browsers, idle CPU at 10,000, one event fanned
// out to 5,000 subscribers (p50/p99), and 1,000 idle workers (RSS, idle CPU, connect time).
// Usage: node bench/sockets/sockets.mjs [--rounds 2] [--provider sqlite|postgresql] [--idle-seconds 30]
//        [--browsers 10000] [--workers 1000] [--events 20] [--entry <another build's dist/index.js>]
//        [--targets bare,svc] [--profile <dir>]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { benchArgs } from '../lib/args.mjs';
import {
  cpuMsOf,
  memoryOf,
  percentile,
  prepareSvcProject,
  repoRoot,
  startBareWsServer,
  startServerProcess,
} from '../lib/server-process.mjs';
import { connectBrowser, connectWorker } from '../ws/load-clients.mjs';

// Two sides of 10,000+ sockets need more descriptors than the usual 1,024 (or 20,000): raise the limit
// once and start again under it (root may raise the hard limit too).
const FD_LIMIT = 65_536;
if (!process.env.SVC_BENCH_FD_RAISED) {
  const script = `ulimit -n ${FD_LIMIT} 2>/dev/null || ulimit -n $(ulimit -Hn); exec "$0" "$@"`;
  const result = spawnSync('bash', ['-c', script, process.execPath, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, SVC_BENCH_FD_RAISED: '1' },
  });
  process.exit(result.status ?? 1);
}

const args = benchArgs();
const rounds = Number(args.rounds ?? 2);
const provider = args.provider ?? 'sqlite';
const idleMs = Number(args['idle-seconds'] ?? 30) * 1000;
const browserCount = Number(args.browsers ?? 10_000);
const workerCount = Number(args.workers ?? 1000);
const eventCount = Number(args.events ?? 20);
const targets = (args.targets ?? 'bare,svc').split(',');
const connectSizes = [1000, 5000].filter((n) => n < browserCount);
/** upgrades in flight at once from the bench (a page load storm, not one socket at a time) */
const CONNECT_CONCURRENCY = 200;

// The per-user stream cap (32 by default) and the per-process one are policies: the bench's browsers are
// one signed-in user, so both are lifted (as in bench/ws).
// --profile <dir>: the svc server writes a V8 CPU profile there (bench/ws/cpu-profile-hook.cjs).
const serverEnv = {
  EVENT_STREAMS_PER_USER: '1000000',
  EVENT_STREAMS_MAX: '1000000',
  ...(args.profile
    ? {
        NODE_OPTIONS: `--require ${join(repoRoot, 'bench/ws/cpu-profile-hook.cjs')}`,
        SVC_CPU_PROFILE_DIR: args.profile,
      }
    : {}),
};

async function idleCpu(pid) {
  const before = cpuMsOf(pid);
  const started = performance.now();
  await new Promise((r) => setTimeout(r, idleMs));
  return (cpuMsOf(pid) - before) / ((performance.now() - started) / 1000);
}

async function startSvc(workflows) {
  const server = await startServerProcess({ provider, env: serverEnv, ...(args.entry ? { entry: args.entry } : {}) });
  return { ...server, ...(await prepareSvcProject(server, { name: 'sockets bench', workflows })) };
}

/** Opens and subscribes `count` browsers, CONNECT_CONCURRENCY at a time; `watched(i)` is browser i's workflow. */
async function connectBrowsers(server, count, watched) {
  const sockets = new Array(count);
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    for (let i = next++; i < count; i = next++)
      sockets[i] = await connectBrowser(server.url, server.browserHeaders ?? {}, watched(i));
  };
  await Promise.all(Array.from({ length: Math.min(CONNECT_CONCURRENCY, count) }, lane));
  return { sockets, seconds: (performance.now() - started) / 1000 };
}

async function closeAll(sockets) {
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise((resolve) => {
          if (ws.readyState === ws.CLOSED) return resolve();
          ws.once('close', resolve);
          ws.terminate();
        }),
    ),
  );
  await new Promise((r) => setTimeout(r, 500)); // the server notices the closes
}

/**
 * One worker update at a time, each fanned out to the subscribers of `worker.workflowId`; the latency
 * of every delivery from the worker's send (same process, same clock). The next update goes once every
 * subscriber has the last.
 */
async function fanOut(worker, subscribers) {
  const latencies = [];
  let seq = worker.nextSeq;
  for (let e = 0; e < eventCount; e++) {
    let waiting = subscribers.length;
    const sent = performance.now();
    const all = new Promise((resolve, reject) => {
      setTimeout(
        () => reject(new Error(`event ${e}: ${waiting} subscribers still waiting after 60 s`)),
        60_000,
      ).unref();
      for (const ws of subscribers) {
        const onMessage = (raw) => {
          if (!raw.toString().startsWith('{"type":"workflow_update"')) return;
          ws.off('message', onMessage);
          latencies.push(performance.now() - sent);
          if (--waiting === 0) resolve();
        };
        ws.on('message', onMessage);
      }
    });
    const data = JSON.stringify({ step_index: 0, tool_name: 'bench', tool_input: { e }, output: 'x', is_error: false });
    worker.ws.send(
      `{"type":"update","workflow_id":${JSON.stringify(worker.workflowId)},"seq":${seq++},"kind":"log_entry","data":${data}}`,
    );
    await all;
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** Browsers: connect `browserCount` (half on each of two workflows), memory, idle CPU, fan-out; then 1,000 and 5,000. */
async function browserRound(target) {
  const bare = target === 'bare';
  // svc: two queued workflows; the fan-out worker (capacity 1) is handed one, the other is only watched.
  const server = bare ? await startBareWsServer() : await startSvc(2);
  try {
    const worker = await connectWorker(server.url, server.token, 'fan-out', bare ? 'wf-0' : undefined);
    // Heartbeats as the real worker's (10 s), naming its run: a silent worker is cut after 30 s.
    const beat = () => worker.ws.send(JSON.stringify({ type: 'heartbeat', active_workflows: [worker.workflowId] }));
    beat();
    const beating = setInterval(beat, 10_000).unref();
    const other = bare ? 'wf-1' : null;
    // Warm-up: one browser in and out, so the baseline includes what the first connection loads.
    await closeAll((await connectBrowsers(server, 1, () => worker.workflowId)).sockets);
    const baseline = memoryOf(server.pid).rssMiB;
    const half = Math.ceil(browserCount / 2);
    const secondWorkflow = other ?? server.workflowIds.find((id) => id !== worker.workflowId);
    const big = await connectBrowsers(server, browserCount, (i) => (i < half ? worker.workflowId : secondWorkflow));
    await new Promise((r) => setTimeout(r, 1000));
    const row = {
      target,
      [`connect${browserCount}`]: big.seconds,
      perBrowserKiB: ((memoryOf(server.pid).rssMiB - baseline) * 1024) / browserCount,
      idleCpuMsPerSecond: await idleCpu(server.pid),
      ...prefix('fanout', await fanOut(worker, big.sockets.slice(0, half))),
    };
    await closeAll(big.sockets);
    for (const n of connectSizes) {
      const { sockets, seconds } = await connectBrowsers(server, n, () => worker.workflowId);
      row[`connect${n}`] = seconds;
      await closeAll(sockets);
    }
    clearInterval(beating);
    worker.ws.terminate();
    return row;
  } finally {
    await server.stop();
  }
}

/** Workers: `workerCount` register (connect time), then heartbeat as the real worker does while idle. */
async function workerRound(target) {
  const bare = target === 'bare';
  const server = bare ? await startBareWsServer() : await startSvc(0);
  const heartbeats = [];
  try {
    const baseline = memoryOf(server.pid).rssMiB;
    const started = performance.now();
    const workers = [];
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < workerCount; i = next++) {
        // no workflow is queued: every worker idles with room (the id only skips waiting for a dispatch)
        workers[i] = await connectWorker(server.url, server.token, `idle-${i}`, `idle-${i}`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONNECT_CONCURRENCY, workerCount) }, lane));
    const connectSeconds = (performance.now() - started) / 1000;
    // The real worker heartbeats every heartbeat_seconds (10 by default), with what it runs.
    for (const [i, w] of workers.entries()) {
      const beat = () => w.ws.send('{"type":"heartbeat","active_workflows":[]}');
      const spread = setTimeout(() => heartbeats.push(setInterval(beat, 10_000)) && beat(), (i * 10_000) / workerCount);
      heartbeats.push(spread);
    }
    await new Promise((r) => setTimeout(r, 10_000)); // every worker has sent its first heartbeat
    const idleCpuMsPerSecond = await idleCpu(server.pid);
    const rssMiB = memoryOf(server.pid).rssMiB;
    for (const t of heartbeats) clearInterval(t);
    await closeAll(workers.map((w) => w.ws));
    return {
      target,
      workerConnect: connectSeconds,
      workerRssMiB: rssMiB,
      workerRssGrowthMiB: rssMiB - baseline,
      workerIdleCpu: idleCpuMsPerSecond,
    };
  } finally {
    for (const t of heartbeats) clearInterval(t);
    await server.stop();
  }
}

function prefix(name, values) {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [`${name}${k[0].toUpperCase()}${k.slice(1)}`, v]));
}

const results = { svc: [], bare: [] };
for (let round = 1; round <= rounds; round++) {
  for (const target of targets) {
    const row = { ...(await browserRound(target)), ...(await workerRound(target)), round };
    results[target].push(row);
    console.error(JSON.stringify(row));
  }
}

const ROWS = [
  ['memory per idle subscribed browser, KiB', 'perBrowserKiB', 1],
  ...[...connectSizes, browserCount].map((n) => [`connect ${n.toLocaleString('en')} browsers, s`, `connect${n}`, 2]),
  [`idle CPU at ${browserCount.toLocaleString('en')} browsers, ms/s`, 'idleCpuMsPerSecond', 1],
  [`one event to ${Math.ceil(browserCount / 2).toLocaleString('en')} subscribers, p50 ms`, 'fanoutP50', 1],
  [`one event to ${Math.ceil(browserCount / 2).toLocaleString('en')} subscribers, p99 ms`, 'fanoutP99', 1],
  [`${workerCount.toLocaleString('en')} idle workers, RSS MiB`, 'workerRssMiB', 0],
  [`${workerCount.toLocaleString('en')} idle workers, idle CPU ms/s`, 'workerIdleCpu', 1],
  [`${workerCount.toLocaleString('en')} idle workers, connect s`, 'workerConnect', 2],
];
const range = (values, digits) => {
  const lo = Math.min(...values).toFixed(digits);
  const hi = Math.max(...values).toFixed(digits);
  return lo === hi ? lo : `${lo}–${hi}`;
};
console.log(`\nsvc on ${provider}, ${rounds} round(s); ranges over the rounds, ratio svc / bare per round`);
console.log('| | svc | bare ws | svc / bare |');
console.log('|---|---:|---:|---:|');
for (const [label, key, digits] of ROWS) {
  const ratios = results.svc.filter((_, i) => results.bare[i]).map((row, i) => row[key] / results.bare[i][key]);
  console.log(
    `| ${label} | ${range(
      results.svc.map((r) => r[key]),
      digits,
    )} | ${range(
      results.bare.map((r) => r[key]),
      digits,
    )} | ${ratios.length ? range(ratios, 2) : ''} |`,
  );
}
