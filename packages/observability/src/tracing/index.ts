export { startTracing, sdkLoadCount, tracingActive, type StartTracingOptions, type Tracing } from './start';
export {
  tracingSettings,
  TracingSettingsError,
  OTEL_ENV_NAMES,
  type OtelEnv,
  type TracingSettings,
  type TracingOn,
  type SamplerName,
} from './settings';
export {
  activeTraceIds,
  contextFromTraceparent,
  parseTraceparent,
  sampledTraceRef,
  traceparentOf,
  type TraceRef,
} from './ids';
export { GEN_AI, withSpan } from './spans';
