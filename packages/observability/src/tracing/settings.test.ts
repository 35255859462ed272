import { tracingSettings, TracingSettingsError } from './settings';
import { parseTraceparent, traceparentOf } from './ids';

describe('tracingSettings (decision 0051)', () => {
  it('is off with nothing set, with OTEL_TRACES_EXPORTER=none and with OTEL_SDK_DISABLED=true', () => {
    expect(tracingSettings({})).toEqual({ on: false });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toEqual({
      on: false,
    });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toEqual({
      on: false,
    });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toEqual({ on: false });
  });

  it('is on with an endpoint: the general one gets /v1/traces, the traces one is used as it is', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      on: true,
      url: 'http://collector:4318/v1/traces',
      sampler: 'parentbased_always_on',
      ratio: 1,
    });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
      }),
    ).toMatchObject({ on: true, url: 'https://traces.example/otlp' });
  });

  it('is on with OTEL_TRACES_EXPORTER=otlp alone, to the default local receiver', () => {
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({
      on: true,
      url: 'http://localhost:4318/v1/traces',
    });
  });

  it('reads the sampler and its ratio', () => {
    expect(
      tracingSettings({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }),
    ).toMatchObject({ sampler: 'parentbased_traceidratio', ratio: 0.25 });
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /otlp or none/],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'sometimes' }, /unknown sampler/],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER_ARG: '2' }, /ratio from 0 to 1/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' }, /http\(s\) URL/],
  ])('refuses %j', (env, message) => {
    expect(() => tracingSettings(env)).toThrow(TracingSettingsError);
    expect(() => tracingSettings(env)).toThrow(message);
  });
});

describe('traceparent', () => {
  it('round-trips a stored trace position', () => {
    const ref = { trace_id: '0af7651916cd43dd8448eb211c80319c', trace_span_id: 'b7ad6b7169203331' };
    expect(parseTraceparent(traceparentOf(ref))).toEqual({
      traceId: ref.trace_id,
      spanId: ref.trace_span_id,
      traceFlags: 1,
      isRemote: true,
    });
  });

  it.each([
    undefined,
    '',
    'garbage',
    '00-00000000000000000000000000000000-b7ad6b7169203331-01',
    '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
    'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  ])('refuses %j', (value) => {
    expect(parseTraceparent(value)).toBeNull();
  });
});
