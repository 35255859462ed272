import { startMetricsListener } from '@svc/observability';
import type { Logger } from '../util/logger';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { UpdateBody } from '@svc/protocol';

/**
 * The worker's own Prometheus metrics (config `metrics_listen`, off by default; decision 0050): runs in
 * progress, LLM calls and tokens by model, tool calls by tool and their durations (commands included),
 * and prom-client's process metrics. Counted from the updates the worker sends, as it sends them.
 */
export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly llmCalls: Counter<'model'>;
  private readonly llmTokens: Counter<'model' | 'type'>;
  private readonly toolCalls: Counter<'tool' | 'outcome'>;
  private readonly toolDuration: Histogram<'tool'>;

  constructor(runsInProgress: () => number) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    // `…_total` gauges, which promtool refuses (see the API's metrics/registry.ts)
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      this.registry.removeSingleMetric(name);
    new Gauge({
      name: 'svc_worker_runs_in_progress',
      help: 'Runs this worker is running',
      registers,
      collect() {
        this.set(runsInProgress());
      },
    });
    this.llmCalls = new Counter({
      name: 'svc_worker_llm_calls_total',
      help: 'LLM calls (attempts) by model',
      labelNames: ['model'],
      registers,
    });
    this.llmTokens = new Counter({
      name: 'svc_worker_llm_tokens_total',
      help: 'LLM tokens by model and type (prompt, completion)',
      labelNames: ['model', 'type'],
      registers,
    });
    this.toolCalls = new Counter({
      name: 'svc_worker_tool_calls_total',
      help: 'Tool calls by tool and outcome (ok, error)',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.toolDuration = new Histogram({
      name: 'svc_worker_tool_duration_seconds',
      help: 'Duration of tool calls by tool (commands: their run time)',
      labelNames: ['tool'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900],
      registers,
    });
  }

  /** Counts an update as the worker sends it. */
  readonly observe = (update: UpdateBody): void => {
    if (update.kind === 'llm_call') {
      const { model, prompt_tokens, completion_tokens } = update.data;
      this.llmCalls.inc({ model });
      if (prompt_tokens) this.llmTokens.inc({ model, type: 'prompt' }, prompt_tokens);
      if (completion_tokens) this.llmTokens.inc({ model, type: 'completion' }, completion_tokens);
    } else if (update.kind === 'log_entry') {
      const { tool_name: tool, is_error, duration_ms } = update.data;
      this.toolCalls.inc({ tool, outcome: is_error ? 'error' : 'ok' });
      if (duration_ms !== undefined) this.toolDuration.observe({ tool }, duration_ms / 1000);
    }
  };
}

/** The worker's metrics when `metrics_listen` is set; null (nothing counted) when it is not. */
export const workerMetricsFor = (listen: unknown, runsInProgress: () => number): WorkerMetrics | null =>
  listen ? new WorkerMetrics(runsInProgress) : null;

/**
 * `GET /metrics` of the worker on `metrics_listen` (no token: bind it where only the scraper reaches);
 * without metrics or an address, nothing listens (url null).
 */
export async function startWorkerMetricsListener(
  metrics: WorkerMetrics | null,
  address: { host: string; port: number } | null,
  logger: Logger,
): Promise<{ url: string | null; close(): Promise<void> }> {
  if (!metrics || !address) return { url: null, close: async () => undefined };
  const { registry } = metrics;
  const listener = await startMetricsListener(address, async () => ({
    contentType: registry.contentType,
    body: await registry.metrics(),
  }));
  logger.info({ url: `${listener.url}/metrics` }, 'metrics listening');
  return listener;
}
