import http from 'node:http';
import https from 'node:https';
import { signDelivery } from '../triggers/signature';
import { guardedLookup, literalAddressRefusal } from './targets';

/** The most of a response body kept in the delivery log. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface SendRequest {
  url: string;
  secret: string;
  webhookId: string;
  deliveryId: string;
  event: string;
  body: string;
  userAgent: string;
}

export interface SendResult {
  /** null when no response came */
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string;
  error: string | null;
}

/** The headers of one delivery: ids, the event, and `X-Svc-Signature` over "<timestamp>.<body>". */
export function deliveryHeaders(request: SendRequest, timestamp: number): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': request.userAgent,
    'X-Svc-Webhook-Id': request.webhookId,
    'X-Svc-Delivery': request.deliveryId,
    'X-Svc-Event': request.event,
    ...(signDelivery('timestamped', request.secret, request.body, timestamp) as unknown as Record<string, string>),
  };
}

/**
 * POSTs one delivery: no redirects followed, internal addresses refused at connect time (unless allowed),
 * the whole exchange bounded by `timeoutMs`, at most RESPONSE_EXCERPT_BYTES of the answer kept.
 */
export function sendDelivery(
  request: SendRequest,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  return postToTarget(
    request.url,
    (body) => ({
      ...deliveryHeaders(request, Math.floor(Date.now() / 1000)),
      'Content-Length': String(body.length),
    }),
    request.body,
    options,
  );
}

/**
 * POSTs `text` to an outbound target (a webhook, a chat webhook): no redirects followed, internal
 * addresses refused, also at connect time for every address the name resolves to (unless allowed), the
 * whole exchange bounded by `timeoutMs`, at most RESPONSE_EXCERPT_BYTES of the answer kept. Never rejects:
 * what went wrong is the result's `error`.
 */
export function postToTarget(
  target: string,
  headersFor: (body: Buffer) => Record<string, string>,
  text: string,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let done = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return finish({ statusCode: null, responseExcerpt: '', error: 'the URL does not parse' });
    }
    const literal = literalAddressRefusal(url, options.allowPrivate);
    if (literal) return finish({ statusCode: null, responseExcerpt: '', error: literal.message });
    const body = Buffer.from(text, 'utf8');
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      headers: headersFor(body),
      lookup: guardedLookup(options.allowPrivate) as never,
      agent: false,
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on('error', (err) => finish({ statusCode: null, responseExcerpt: '', error: err.message }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_EXCERPT_BYTES) {
          chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept));
          kept += Math.min(chunk.length, RESPONSE_EXCERPT_BYTES - kept);
        }
      });
      res.on('end', () =>
        finish({
          statusCode: res.statusCode ?? null,
          responseExcerpt: Buffer.concat(chunks).toString('utf8'),
          error: null,
        }),
      );
      res.on('error', (err) =>
        finish({
          statusCode: res.statusCode ?? null,
          responseExcerpt: Buffer.concat(chunks).toString('utf8'),
          error: err.message,
        }),
      );
    });
    req.end(body);
  });
}
