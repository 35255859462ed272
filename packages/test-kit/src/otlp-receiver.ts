import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carried it, flattened. */
export interface ReceivedSpan {
  /** the exporting process's `service.name` */
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a root span */
  parentSpanId: string;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error */
  statusCode: number;
  startNs: bigint;
  endNs: bigint;
}

export interface OtlpReceiver {
  /** the base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT (the exporters post to `<url>/v1/traces`) */
  url: string;
  /** every span received, in arrival order */
  spans: ReceivedSpan[];
  /** export requests that were not OTLP JSON (their content type); a test expects none */
  refused: string[];
  /** resolves with the spans once `ready(spans)` holds for the spans received so far (checked at each export) */
  until(ready: (spans: readonly ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: KeyValue[];
        status?: { code?: number };
        startTimeUnixNano: string | number;
        endTimeUnixNano: string | number;
      }[];
    }[];
  }[];
}

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return null;
}

const attributesOf = (list: KeyValue[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

/** The spans of one OTLP JSON export request (trace and span ids are hex in OTLP JSON). */
export function spansOfExport(body: ExportRequest): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind ?? 0,
        attributes: attributesOf(span.attributes),
        statusCode: span.status?.code ?? 0,
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
      })),
    );
  });
}

/**
 * A real OTLP/HTTP trace receiver on loopback (what a collector or Jaeger offers on port 4318), for the
 * JSON encoding svc's exporter sends: it records every span and answers 200 with an empty partial success.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const waiters: { ready: (spans: readonly ReceivedSpan[]) => boolean; resolve: (s: ReceivedSpan[]) => void }[] = [];
  const check = () => {
    for (const waiter of waiters.splice(0)) {
      if (waiter.ready(spans)) waiter.resolve([...spans]);
      else waiters.push(waiter);
    }
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !type.startsWith('application/json')) {
        refused.push(`${req.method} ${req.url} ${type}`);
        res.writeHead(415, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      spans.push(...spansOfExport(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"partialSuccess":{}}');
      check();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    refused,
    until(ready) {
      if (ready(spans)) return Promise.resolve([...spans]);
      return new Promise((resolve) => waiters.push({ ready, resolve }));
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
