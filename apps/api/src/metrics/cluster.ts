import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import { metricsRegistry } from './registry';
import { startMetricsListener, type RenderMetrics } from '@svc/observability';

/**
 * Metrics under API_PROCESSES (decision 0050): one scrape sees every process of the host, aggregated
 * by the cluster primary with prom-client's AggregatorRegistry (counters and histograms summed, the
 * database gauges by max). The primary serves METRICS_LISTEN; a process answering `GET /metrics` on the
 * shared port asks the primary for the same aggregate over IPC (any process may get the request).
 */
const REQUEST = 'svc:metrics-request';
const REPLY = 'svc:metrics-reply';

interface MetricsRequest {
  type: typeof REQUEST;
  id: string;
}
interface MetricsReply {
  type: typeof REPLY;
  id: string;
  contentType?: string;
  body?: string;
  error?: string;
}

/** In the cluster primary: answers the processes' requests and serves METRICS_LISTEN (when set). */
export async function serveClusterMetrics(
  listen: { host: string; port: number } | null,
  logger: Logger,
): Promise<void> {
  const aggregator = new AggregatorRegistry();
  const render: RenderMetrics = async () => ({
    contentType: aggregator.contentType,
    body: await aggregator.clusterMetrics(),
  });
  cluster.on('message', (worker: Worker, message: unknown) => {
    if ((message as MetricsRequest | null)?.type !== REQUEST) return;
    const { id } = message as MetricsRequest;
    const send = (reply: Omit<MetricsReply, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: REPLY, id, ...reply });
    };
    render().then(send, (err: unknown) => send({ error: String(err) }));
  });
  if (listen) {
    const listener = await startMetricsListener(listen, render);
    logger.info({ url: `${listener.url}/metrics` }, 'metrics listening (all processes)');
  }
}

/** In a server process of the cluster: its registry answers the primary, and its route asks the primary. */
export function clusterProcessMetrics(): RenderMetrics {
  AggregatorRegistry.setRegistries([metricsRegistry]);
  // prom-client answers the primary's requests once an AggregatorRegistry exists in this process.
  new AggregatorRegistry();
  const waiting = new Map<string, { resolve: (r: MetricsReply) => void }>();
  process.on('message', (message: unknown) => {
    const reply = message as MetricsReply | null;
    if (reply?.type !== REPLY) return;
    waiting.get(reply.id)?.resolve(reply);
    waiting.delete(reply.id);
  });
  return async () => {
    const id = randomUUID();
    const reply = await new Promise<MetricsReply>((resolve) => {
      waiting.set(id, { resolve });
      process.send!({ type: REQUEST, id } satisfies MetricsRequest);
    });
    if (reply.error !== undefined || reply.body === undefined) throw new Error(`cluster metrics: ${reply.error}`);
    return { contentType: reply.contentType!, body: reply.body };
  };
}
