import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import { metricsRegistry } from './registry';
import { startMetricsListener, type RenderMetrics } from '@svc/observability';

/**
 * Metrics under API_PROCESSES (decision 0050): one scrape sees every process of the host, aggregated
 * by the cluster primary (counters and histograms summed, the database gauges by max). The primary
 * serves METRICS_LISTEN; a process answering `GET /metrics` on the shared port asks the primary for the
 * same aggregate over IPC (any process may get the request).
 *
 * The primary collects each process's registry itself rather than through prom-client's
 * `clusterMetrics()`, whose 5 s deadline is fixed: the database gauges of a busy host can take longer,
 * and a scrape that fails for that reason loses nothing but is one missing sample.
 */
const SCRAPE = 'svc:metrics-request';
const SCRAPED = 'svc:metrics-reply';
const COLLECT = 'svc:metrics-collect';
const COLLECTED = 'svc:metrics-collected';
/** How long the primary waits for every process's registry (Prometheus' own scrape timeout is shorter). */
const COLLECT_DEADLINE_MS = 30_000;

/** A registry's `getMetricsAsJSON()`, as `AggregatorRegistry.aggregate` takes it. */
type MetricJson = object;
interface Message {
  type: string;
  id: string;
}
interface ScrapeReply extends Message {
  contentType?: string;
  body?: string;
  error?: string;
}
interface CollectReply extends Message {
  metrics?: MetricJson[];
  error?: string;
}

/** In the cluster primary: answers the processes' requests and serves METRICS_LISTEN (when set). */
export async function serveClusterMetrics(
  listen: { host: string; port: number } | null,
  logger: Logger,
): Promise<void> {
  const collecting = new Map<string, (reply: CollectReply) => void>();
  const render: RenderMetrics = async () => {
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w?.isConnected());
    const registries = await Promise.all(workers.map((worker) => collect(worker, collecting)));
    const aggregated = AggregatorRegistry.aggregate(registries);
    return { contentType: aggregated.contentType, body: await aggregated.metrics() };
  };
  cluster.on('message', (worker: Worker, message: unknown) => {
    const { type, id } = (message ?? {}) as Partial<Message>;
    if (type === COLLECTED && id) return collecting.get(id)?.(message as CollectReply);
    if (type !== SCRAPE || !id) return;
    const send = (reply: Omit<ScrapeReply, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: SCRAPED, id, ...reply });
    };
    render().then(send, (err: unknown) => send({ error: String(err) }));
  });
  if (listen) {
    const listener = await startMetricsListener(listen, render);
    logger.info({ url: `${listener.url}/metrics` }, 'metrics listening (all processes)');
  }
}

/** One process's registry as JSON; rejects when it is gone or does not answer in time. */
function collect(worker: Worker, collecting: Map<string, (reply: CollectReply) => void>): Promise<MetricJson[]> {
  const id = randomUUID();
  return new Promise<MetricJson[]>((resolve, reject) => {
    const settle = (reply: CollectReply) => {
      clearTimeout(deadline);
      worker.off('exit', gone);
      collecting.delete(id);
      if (reply.metrics) resolve(reply.metrics);
      else reject(new Error(`metrics of process ${worker.process.pid}: ${reply.error}`));
    };
    const gone = () => settle({ type: COLLECTED, id, error: 'the process exited' });
    const deadline = setTimeout(() => settle({ type: COLLECTED, id, error: 'no answer in time' }), COLLECT_DEADLINE_MS);
    collecting.set(id, settle);
    worker.once('exit', gone);
    worker.send({ type: COLLECT, id } satisfies Message);
  });
}

/** In a server process of the cluster: its registry answers the primary, and its route asks the primary. */
export function clusterProcessMetrics(): RenderMetrics {
  const waiting = new Map<string, (reply: ScrapeReply) => void>();
  process.on('message', (message: unknown) => {
    const { type, id } = (message ?? {}) as Partial<Message>;
    if (!id) return;
    if (type === COLLECT) {
      const send = (reply: Omit<CollectReply, 'type' | 'id'>) => process.send?.({ type: COLLECTED, id, ...reply });
      metricsRegistry.getMetricsAsJSON().then(
        (metrics) => send({ metrics }),
        (err: unknown) => send({ error: String(err) }),
      );
    } else if (type === SCRAPED) {
      waiting.get(id)?.(message as ScrapeReply);
      waiting.delete(id);
    }
  });
  return async () => {
    const id = randomUUID();
    const reply = await new Promise<ScrapeReply>((resolve) => {
      waiting.set(id, resolve);
      process.send!({ type: SCRAPE, id } satisfies Message);
    });
    if (reply.error !== undefined || reply.body === undefined) throw new Error(`cluster metrics: ${reply.error}`);
    return { contentType: reply.contentType!, body: reply.body };
  };
}
