import type { Attributes, Context, Link, SpanKind, TracerProvider } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import type { Sampler, SamplingResult } from '@opentelemetry/sdk-trace-base';
import { tracingSettings, type OtelEnv, type TracingOn } from './settings';

/** Started tracing: flushed and stopped by `shutdown()` (graceful stop of the API or the worker). */
export interface Tracing {
  readonly enabled: boolean;
  /** the SDK's tracer provider, for instrumentations (the Prisma one); null when tracing is off */
  readonly provider: TracerProvider | null;
  /** exports every ended span now */
  forceFlush(): Promise<void>;
  /** exports what is left and stops; later spans are not recorded. Never rejects: see `onShutdownError`. */
  shutdown(): Promise<void>;
}

export interface StartTracingOptions {
  /** `service.name` unless OTEL_SERVICE_NAME (or `service.name` in OTEL_RESOURCE_ATTRIBUTES) names another */
  serviceName: string;
  serviceVersion?: string;
  /** the standard OTEL_* variables (decision 0051) */
  env: OtelEnv;
  /** told why the last spans could not be exported at shutdown (the receiver is down); the stop goes on */
  onShutdownError?: (error: unknown) => void;
}

const OFF: Tracing = {
  enabled: false,
  provider: null,
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

let sdkLoads = 0;
/** How often the SDK was loaded in this process: 0 while tracing is off (tests of the off state). */
export const sdkLoadCount = (): number => sdkLoads;

let active = false;
/** Whether this process traces now (started and not shut down). */
export const tracingActive = (): boolean => active;

/**
 * Starts OpenTelemetry tracing when the OTEL_* variables ask for it (decision 0051): OTLP/HTTP (JSON)
 * export through a batch processor, the W3C trace-context propagator and the AsyncLocalStorage context
 * manager, registered globally. Off, nothing beyond `@opentelemetry/api` is loaded and every span is
 * the API's no-op; the SDK modules are imported only here, only when on.
 */
export async function startTracing(options: StartTracingOptions): Promise<Tracing> {
  const settings = tracingSettings(options.env);
  if (!settings.on) return OFF;
  return startSdk(settings, options);
}

async function startSdk(settings: TracingOn, options: StartTracingOptions): Promise<Tracing> {
  sdkLoads++;
  const [{ NodeTracerProvider }, base, { OTLPTraceExporter }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the SDK's environment detector) win over the default name.
  const resource = resources
    .resourceFromAttributes({
      'service.name': options.serviceName,
      ...(options.serviceVersion ? { 'service.version': options.serviceVersion } : {}),
    })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    sampler: new NoLoneDatabaseRoots(samplerOf(settings, base)),
    // Headers, time-out and compression: the exporter reads OTEL_EXPORTER_OTLP_(TRACES_)HEADERS and the rest itself.
    spanProcessors: [new base.BatchSpanProcessor(new OTLPTraceExporter({ url: settings.url }))],
  });
  provider.register();
  active = true;
  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    provider,
    forceFlush: () => provider.forceFlush(),
    shutdown: () =>
      (stopped ??= provider
        .shutdown()
        .catch((error: unknown) => options.onShutdownError?.(error))
        .finally(() => {
          active = false;
          trace.disable();
        })),
  };
}

type SdkBase = typeof import('@opentelemetry/sdk-trace-base');

function samplerOf(settings: TracingOn, base: SdkBase): Sampler {
  const ratio = () => new base.TraceIdRatioBasedSampler(settings.ratio);
  switch (settings.sampler) {
    case 'always_on':
      return new base.AlwaysOnSampler();
    case 'always_off':
      return new base.AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_on':
      return new base.ParentBasedSampler({ root: new base.AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new base.ParentBasedSampler({ root: new base.AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new base.ParentBasedSampler({ root: ratio() });
    default: {
      const unreachable: never = settings.sampler;
      return unreachable;
    }
  }
}

/**
 * Database spans belong to a request or a run: a Prisma span with no parent (a background poller's
 * query) would start a trace of its own for every poll, so it is not recorded (decision 0051). Every
 * other span is sampled as configured.
 */
class NoLoneDatabaseRoots implements Sampler {
  constructor(private readonly inner: Sampler) {}

  shouldSample(
    ctx: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    if (spanName.startsWith('prisma:') && !trace.getSpanContext(ctx)) return { decision: 0 };
    return this.inner.shouldSample(ctx, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return `NoLoneDatabaseRoots{${this.inner.toString()}}`;
  }
}
