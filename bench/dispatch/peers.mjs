// The job queues svc's dispatch is measured beside, each doing the same work: a job is enqueued, a
// worker receives it and completes it at once. 4 workers x capacity 4 means 4 worker instances of
// the queue's own kind, each running 4 jobs at a time. Each peer gets a fresh PostgreSQL database
// (graphile-worker, pg-boss) or its own Redis key prefix (BullMQ), dropped at the end. A peer's job is
// done when its worker reports it completed (svc's at the ack, sent after the commit).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { POSTGRES_URL, repoRoot } from '../lib/server-process.mjs';
import { redisCpuMs } from './cpu.mjs';

const requireBench = createRequire(join(repoRoot, 'bench/package.json'));
const pg = createRequire(join(repoRoot, 'packages/db/package.json'))('pg');
const REDIS = { host: '127.0.0.1', port: 6379 };

async function freshDatabase(label) {
  const name = `svc_bench_${label}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // Dropped once the peer's own clients have left (FORCE would end them under it: an error event
    // that crashes the bench); after 30 s it is forced.
    drop: async () => {
      const deadline = Date.now() + 30_000;
      const connected = async () =>
        (await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name])).rows[0].n;
      while (Date.now() < deadline && (await connected()) > 0) await new Promise((r) => setTimeout(r, 100));
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

const silentLogger = () => {
  const { Logger } = requireBench('graphile-worker');
  return new Logger(() => () => undefined);
};

export async function graphileTarget() {
  const { run, makeWorkerUtils } = requireBench('graphile-worker');
  const database = await freshDatabase('graphile');
  const logger = silentLogger();
  const utils = await makeWorkerUtils({ connectionString: database.url, logger });
  await utils.migrate();
  let runners = [];
  return {
    name: 'graphile-worker',
    databaseUrl: database.url,
    enqueue: (job) => utils.addJob('bench', { job }),
    async startWorkers(count, capacity, tracker) {
      const taskList = {
        bench: async ({ job }) => tracker.received(job),
      };
      runners = await Promise.all(
        Array.from({ length: count }, () =>
          run({ connectionString: database.url, concurrency: capacity, noHandleSignals: true, taskList, logger }),
        ),
      );
      for (const runner of runners) runner.events.on('job:complete', ({ job }) => tracker.done(job.payload.job));
    },
    async stopWorkers() {
      await Promise.all(runners.map((runner) => runner.stop()));
      runners = [];
    },
    async stop() {
      await utils.release();
      await database.drop();
    },
  };
}

export async function bullmqTarget() {
  const { Queue, Worker } = requireBench('bullmq');
  const name = 'bench';
  const prefix = `svc-bench-${Date.now().toString(36)}`;
  const queue = new Queue(name, { connection: REDIS, prefix });
  // Its own connection for INFO: the queue's client is not ready until the queue has run a command.
  const Redis = requireBench('ioredis');
  const redis = new Redis(REDIS);
  let workers = [];
  return {
    name: 'BullMQ',
    enqueue: (job) => queue.add('bench', { job }, { removeOnComplete: true }),
    async startWorkers(count, capacity, tracker) {
      workers = Array.from({ length: count }, () => {
        const worker = new Worker(name, async ({ data }) => tracker.received(data.job), {
          connection: REDIS,
          prefix,
          concurrency: capacity,
        });
        worker.on('completed', ({ data }) => tracker.done(data.job));
        return worker;
      });
      await Promise.all(workers.map((worker) => worker.waitUntilReady()));
    },
    async stopWorkers() {
      await Promise.all(workers.map((worker) => worker.close()));
      workers = [];
    },
    databaseCpuMs: () => redisCpuMs(redis),
    async stop() {
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    },
  };
}

/** pg-boss polls (its shortest interval is 0.5 s); every worker instance polls for `capacity` jobs at once. */
export async function pgBossTarget() {
  const PgBoss = requireBench('pg-boss');
  const database = await freshDatabase('pgboss');
  const name = 'bench';
  const boss = new PgBoss({ connectionString: database.url, supervise: false, schedule: false });
  boss.on('error', () => undefined);
  await boss.start();
  await boss.createQueue(name);
  let workers = [];
  return {
    name: 'pg-boss',
    databaseUrl: database.url,
    enqueue: (job) => boss.send(name, { job }),
    async startWorkers(count, capacity, tracker) {
      workers = await Promise.all(
        Array.from({ length: count }, async () => {
          const worker = new PgBoss({
            connectionString: database.url,
            supervise: false,
            schedule: false,
            migrate: false,
          });
          worker.on('error', () => undefined);
          await worker.start();
          await worker.work(name, { batchSize: capacity, pollingIntervalSeconds: 0.5 }, async (jobs) => {
            for (const { data } of jobs) tracker.received(data.job);
            setImmediate(() => jobs.forEach(({ data }) => tracker.done(data.job))); // pg-boss has no completed event
          });
          return worker;
        }),
      );
    },
    async stopWorkers() {
      await Promise.all(workers.map((worker) => worker.stop({ graceful: true, wait: true })));
      workers = [];
    },
    async stop() {
      await boss.stop({ graceful: false, wait: true });
      await database.drop();
    },
  };
}
