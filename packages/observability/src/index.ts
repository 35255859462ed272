export { childWithLogIds, logIdsOptions, noteRunId, runWithLogIds, withLogIds, type LogIds } from './log-context';
export { startMetricsListener, type MetricsListener, type RenderMetrics } from './metrics-listener';
export * from './tracing';
