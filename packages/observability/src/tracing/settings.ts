/**
 * The standard OpenTelemetry variables svc reads to decide whether it traces (decision 0051). Passed in
 * by each app's env module; nothing here reads `process.env`.
 */
export interface OtelEnv {
  OTEL_SDK_DISABLED?: string | undefined;
  OTEL_TRACES_EXPORTER?: string | undefined;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_TRACES_SAMPLER?: string | undefined;
  OTEL_TRACES_SAMPLER_ARG?: string | undefined;
}

/** The names of the variables above, for an app that copies them out of its environment. */
export const OTEL_ENV_NAMES = [
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
] as const satisfies readonly (keyof OtelEnv)[];

export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

const SAMPLERS: ReadonlySet<string> = new Set<SamplerName>([
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
]);

/** Tracing on: where spans go (OTLP/HTTP) and how roots are sampled. */
export interface TracingOn {
  on: true;
  /** the full traces URL (`…/v1/traces`) */
  url: string;
  sampler: SamplerName;
  /** the ratio of the `*traceidratio` samplers */
  ratio: number;
}
export type TracingSettings = TracingOn | { on: false };

/** Thrown for a variable svc cannot honour; the apps report it as a configuration error. */
export class TracingSettingsError extends Error {
  override name = 'TracingSettingsError';
}

const DEFAULT_ENDPOINT = 'http://localhost:4318';
const set = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);

/**
 * Decision 0051: tracing is on when `OTEL_TRACES_EXPORTER` is `otlp`, or when it is unset and an OTLP
 * endpoint (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`) is set. It is off
 * otherwise, and always with `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true`. Exporters other
 * than `otlp` and `none` are refused, as are unknown samplers and a ratio outside 0..1.
 */
export function tracingSettings(env: OtelEnv): TracingSettings {
  if (set(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return { on: false };
  const exporter = exporterOf(env);
  const tracesEndpoint = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const endpoint = set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (exporter === 'none' || (exporter === undefined && !tracesEndpoint && !endpoint)) return { on: false };
  // The signal-specific URL is used as it is; the general one gets the signal's path (the OTLP spec).
  const url = tracesEndpoint ?? `${(endpoint ?? DEFAULT_ENDPOINT).replace(/\/+$/, '')}/v1/traces`;
  if (!/^https?:\/\//.test(url))
    throw new TracingSettingsError(`the OTLP traces endpoint must be an http(s) URL, not ${url}`);
  return { on: true, url, ...samplingOf(env) };
}

function exporterOf(env: OtelEnv): 'otlp' | 'none' | undefined {
  const exporter = set(env.OTEL_TRACES_EXPORTER)?.toLowerCase();
  if (exporter === undefined || exporter === 'otlp' || exporter === 'none') return exporter;
  throw new TracingSettingsError(
    `OTEL_TRACES_EXPORTER: svc exports traces over OTLP/HTTP only (otlp or none), not ${exporter}`,
  );
}

function samplingOf(env: OtelEnv): { sampler: SamplerName; ratio: number } {
  const sampler = (set(env.OTEL_TRACES_SAMPLER)?.toLowerCase() ?? 'parentbased_always_on') as SamplerName;
  if (!SAMPLERS.has(sampler))
    throw new TracingSettingsError(`OTEL_TRACES_SAMPLER: unknown sampler ${sampler} (${[...SAMPLERS].join(', ')})`);
  const arg = set(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = arg === undefined ? 1 : Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new TracingSettingsError(`OTEL_TRACES_SAMPLER_ARG: a ratio from 0 to 1, not ${arg}`);
  return { sampler, ratio };
}
