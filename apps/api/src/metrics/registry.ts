import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type pg from 'pg';
import type { Db } from '@svc/db';
import { queuedWhere } from '../dispatch/queue';
import { unfinishedWhere } from '../workflows/status';

/**
 * The API's Prometheus metrics (decision 0050). One registry per process: the counters and histograms
 * count what this process did (replicas and API_PROCESSES processes add up: Prometheus or the cluster
 * primary sums them); the gauges read from the database at scrape time (runs by status, queue depth,
 * workers) are the same on every replica and are marked `aggregator: 'max'` so the cluster primary does
 * not add them up — across replicas read them with max() (README "### Metrics").
 */
export const metricsRegistry = new Registry();

let collectingProcessMetrics = false;

/**
 * prom-client's process metrics (event-loop lag, heap, GC, CPU), once, and only when metrics are served:
 * they install event-loop and GC observers that live as long as the process, which a process serving no
 * metrics (or a test runner loading this module once per test file) should not pay for.
 */
export function collectProcessMetrics(): void {
  if (collectingProcessMetrics) return;
  collectingProcessMetrics = true;
  collectDefaultMetrics({ register: metricsRegistry });
  // prom-client names these gauges `…_total`, which Prometheus reserves for counters (`promtool check
  // metrics` refuses them); the handle and request counts are left out.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
    metricsRegistry.removeSingleMetric(name);
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];

export const httpRequestDuration = new Histogram({
  name: 'svc_http_request_duration_seconds',
  help: 'HTTP requests by method, route template (never the raw URL) and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: SECONDS_BUCKETS,
  registers: [metricsRegistry],
});

export const dispatchWait = new Histogram({
  name: 'svc_dispatch_wait_seconds',
  help: 'Time from a run being created to its first dispatch to a worker',
  buckets: WAIT_BUCKETS,
  registers: [metricsRegistry],
});

export const ingestUpdates = new Counter({
  name: 'svc_ingest_updates_total',
  help: 'Worker updates stored, by kind (duplicates and refusals are not counted)',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

export const ingestCommitDuration = new Histogram({
  name: 'svc_ingest_commit_duration_seconds',
  help: 'Time to commit one batch of worker updates',
  buckets: SECONDS_BUCKETS,
  registers: [metricsRegistry],
});

export const llmCalls = new Counter({
  name: 'svc_llm_calls_total',
  help: 'LLM calls reported by workers and stored, by model (counted once, where the call log is stored)',
  labelNames: ['model'] as const,
  registers: [metricsRegistry],
});

export const llmTokens = new Counter({
  name: 'svc_llm_tokens_total',
  help: 'LLM tokens of the stored call logs, by model and type (prompt, completion)',
  labelNames: ['model', 'type'] as const,
  registers: [metricsRegistry],
});

export const llmCost = new Counter({
  name: 'svc_llm_cost_usd_total',
  help: 'Estimated LLM cost in USD at the llm_prices setting, by model',
  labelNames: ['model'] as const,
  registers: [metricsRegistry],
});

/** What the scrape-time gauges read: the live sockets and the database of the running server. */
export interface MetricSources {
  db: Db;
  pgPool: pg.Pool | null;
  browserSockets(): number;
  workerSockets(): number;
}

let sources: MetricSources | null = null;
let openSse = 0;

/** The running server's sources (the last one started in this process: one per process outside tests). */
export function setMetricSources(next: MetricSources | null): void {
  sources = next;
}

/** An SSE stream opened (+1) or ended (-1). */
export function sseStreamsChanged(delta: 1 | -1): void {
  openSse += delta;
}

new Gauge({
  name: 'svc_open_sockets',
  help: 'Open sockets of this process by kind (browser WebSocket, worker WebSocket, SSE stream)',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
  collect() {
    this.set({ kind: 'browser' }, sources?.browserSockets() ?? 0);
    this.set({ kind: 'worker' }, sources?.workerSockets() ?? 0);
    this.set({ kind: 'sse' }, openSse);
  },
});

new Gauge({
  name: 'svc_db_pool_connections',
  help: "This process's PostgreSQL pool connections by state (total, idle, waiting); absent on SQLite",
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
  collect() {
    const pool = sources?.pgPool;
    if (!pool) return;
    this.set({ state: 'total' }, pool.totalCount);
    this.set({ state: 'idle' }, pool.idleCount);
    this.set({ state: 'waiting' }, pool.waitingCount);
  },
});

/** A gauge read from the database: the same on every replica (max, not sum, when aggregated). */
function databaseGauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  read: (db: Db, gauge: Gauge<L>) => Promise<void>,
): void {
  new Gauge<L>({
    name,
    help: `${help} (from the database: the same on every replica; read with max())`,
    labelNames,
    aggregator: 'max',
    registers: [metricsRegistry],
    async collect() {
      if (!sources) return;
      this.reset();
      await read(sources.db, this);
    },
  });
}

databaseGauge('svc_runs', 'Runs (workflows, not deleted) by status', ['status'], async (db, gauge) => {
  const groups = await db.workflow.groupBy({ by: ['status'], where: { deleted_at: null }, _count: { _all: true } });
  for (const g of groups) gauge.set({ status: g.status }, g._count._all);
});

databaseGauge('svc_dispatch_queue_depth', 'Runs waiting for a worker', [], async (db, gauge) => {
  gauge.set(await db.workflow.count({ where: queuedWhere }));
});

databaseGauge('svc_workers_online', 'Workers online', [], async (db, gauge) => {
  gauge.set(await db.worker.count({ where: { status: 'online' } }));
});

databaseGauge(
  'svc_worker_capacity_slots',
  'Run slots of the online workers: total, and in use (unfinished runs assigned to them)',
  ['state'],
  async (db, gauge) => {
    const online = await db.worker.findMany({ where: { status: 'online' }, select: { id: true, capacity: true } });
    const inUse =
      online.length === 0
        ? 0
        : await db.workflow.count({
            where: { ...unfinishedWhere, assigned_worker_id: { in: online.map((w) => w.id) } },
          });
    gauge.set(
      { state: 'total' },
      online.reduce((sum, w) => sum + w.capacity, 0),
    );
    gauge.set({ state: 'in_use' }, inUse);
  },
);
