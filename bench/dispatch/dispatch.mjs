// Benchmark (issue 28): svc's dispatch beside the job queues graphile-worker, BullMQ and pg-boss doing
// the same work on the same PostgreSQL / Redis, in one run. A job: enqueue (svc: create a workflow
// through REST) -> a worker receives it (svc: `dispatch` on its socket) -> completes it at once (svc:
// one `status: completed` update, done at its `ack`). Per target and round, on a fresh database:
//   latency    jobs one at a time: enqueue call returned -> worker received it, p50 / p99
//   throughput 4 workers x capacity 4 running while --jobs are enqueued 16 at a time: jobs/s to the last done
//   enqueue    --enqueues jobs at 1, 4 and 16 calls in flight, no worker running: enqueues/s
//   drain      then the workers start on that backlog (3 x --enqueues jobs): jobs/s
//   CPU/job    over the throughput phase: the svc server process, and the PostgreSQL backends of the
//              target's database (Redis's own CPU for BullMQ)
//   node bench/dispatch/dispatch.mjs [--rounds 3] [--jobs 2000] [--latency-jobs 100] [--enqueues 300]
//        [--peers graphile,bullmq,pgboss] [--profile <dir>] [--entry apps/api/dist/index.js]
// --profile: a V8 CPU profile of the svc server; --entry: the svc server build to run (before/after).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { benchArgs } from '../lib/args.mjs';
import { percentile, POSTGRES_URL, repoRoot } from '../lib/server-process.mjs';
import { backendCpu } from './cpu.mjs';
import { bullmqTarget, graphileTarget, pgBossTarget } from './peers.mjs';
import { svcTarget } from './svc-target.mjs';
import { printTable } from './report.mjs';

const args = benchArgs();
const rounds = Number(args.rounds ?? 3);
const jobs = Number(args.jobs ?? 2000);
const latencyJobs = Number(args['latency-jobs'] ?? 100);
const enqueues = Number(args.enqueues ?? 300);
const WORKERS = 4;
const CAPACITY = 4;
const LEVELS = [1, 4, 16];
const PEERS = { graphile: graphileTarget, bullmq: bullmqTarget, pgboss: pgBossTarget };
const peers = (args.peers ?? 'graphile,bullmq,pgboss').split(',').filter(Boolean);
const pg = createRequire(join(repoRoot, 'packages/db/package.json'))('pg');

/** Which jobs were received when, and waiting for jobs to be done. */
function newTracker() {
  const receivedAt = new Map();
  const done = new Set();
  let waiters = [];
  return {
    received: (job) => receivedAt.has(job) || receivedAt.set(job, performance.now()),
    done(job) {
      done.add(job);
      waiters = waiters.filter((w) => !(w.ready() && (w.resolve(), true)));
    },
    receivedAt: (job) => receivedAt.get(job),
    until(ready) {
      return ready() ? Promise.resolve() : new Promise((resolve) => waiters.push({ ready, resolve }));
    },
    isDone: (job) => done.has(job),
    get doneCount() {
      return done.size;
    },
  };
}

/** `count` enqueues, `concurrency` in flight; returns the seconds it took. */
async function enqueueAll(target, first, count, concurrency) {
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < count) await target.enqueue(first + next++);
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return (performance.now() - started) / 1000;
}

async function measureTarget(target) {
  const tracker = newTracker();
  let job = 0;
  await target.startWorkers(WORKERS, CAPACITY, tracker);
  const latencies = [];
  for (let i = 0; i < latencyJobs; i++, job++) {
    await target.enqueue(job);
    const returned = performance.now();
    const mine = job;
    await tracker.until(() => tracker.isDone(mine));
    latencies.push(Math.max(0, tracker.receivedAt(mine) - returned));
  }
  latencies.sort((a, b) => a - b);

  const cpu = await cpuMeter(target);
  const doneBefore = tracker.doneCount;
  const started = performance.now();
  await enqueueAll(target, job, jobs, 16);
  job += jobs;
  await tracker.until(() => tracker.doneCount >= doneBefore + jobs);
  const throughput = jobs / ((performance.now() - started) / 1000);
  const { serverMs, databaseMs } = await cpu();
  await target.stopWorkers();

  const enqueueRates = [];
  for (const concurrency of LEVELS) {
    enqueueRates.push(enqueues / (await enqueueAll(target, job, enqueues, concurrency)));
    job += enqueues;
  }
  const backlog = enqueues * LEVELS.length;
  const drainStart = performance.now();
  const doneBeforeDrain = tracker.doneCount;
  await target.startWorkers(WORKERS, CAPACITY, tracker);
  await tracker.until(() => tracker.doneCount >= doneBeforeDrain + backlog);
  const drain = backlog / ((performance.now() - drainStart) / 1000);
  await target.stopWorkers();
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    throughput,
    drain,
    enqueueRates,
    serverCpuPerJob: serverMs === undefined ? undefined : serverMs / jobs,
    databaseCpuPerJob: databaseMs / jobs,
    refusedEnqueues: target.refusedEnqueues?.(),
  };
}

/** Starts measuring CPU; the returned function gives the server's and the database's ms since. */
async function cpuMeter(target) {
  const serverBefore = target.serverCpuMs?.();
  if (target.databaseCpuMs) {
    const before = await target.databaseCpuMs();
    return async () => ({ databaseMs: (await target.databaseCpuMs()) - before });
  }
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  const stop = await backendCpu(admin, new URL(target.databaseUrl).pathname.slice(1)).start();
  return async () => {
    const databaseMs = await stop();
    await admin.end();
    return { serverMs: target.serverCpuMs ? target.serverCpuMs() - serverBefore : undefined, databaseMs };
  };
}

const svcOptions = {
  ...(args.profile ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] } : {}),
  ...(args.entry ? { entry: join(repoRoot, args.entry) } : {}),
};
const makers = [['svc', () => svcTarget(svcOptions)], ...peers.map((name) => [name, PEERS[name]])];
const results = []; // per round: { name: result }
console.log(
  `dispatch: ${rounds} rounds, ${WORKERS} workers x capacity ${CAPACITY}, ${jobs} jobs, ` +
    `${latencyJobs} latency jobs, ${enqueues} enqueues per level`,
);
for (let round = 0; round < rounds; round++) {
  const measured = {};
  for (const [, make] of makers) {
    const target = await make();
    try {
      measured[target.name] = await measureTarget(target);
    } finally {
      await target.stop();
    }
    console.error(JSON.stringify({ round: round + 1, target: target.name, ...measured[target.name] }));
  }
  results.push(measured);
}
printTable(results);
process.exit(0); // the peers' clients keep sockets (Redis, pools) that are not ours to wait for
