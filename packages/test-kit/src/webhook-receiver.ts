import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got, after it checked the signature the way the README tells receivers to. */
export interface ReceivedDelivery {
  webhookId: string;
  deliveryId: string;
  event: string;
  timestamp: number;
  /** whether `X-Svc-Signature` is `sha256=hex(HMAC-SHA256(secret, "<timestamp>.<body>"))` */
  signatureValid: boolean;
  body: string;
  json: { id: string; type: string; [key: string]: unknown };
  /** what the receiver answered (null: it held the request and never answered) */
  answered: number | null;
}

/** What the receiver does with the n-th request (0-based) for an event id: answer a status, or hold it open. */
export type ReceiverPlan = (request: { eventId: string; nth: number; deliveryId: string }) => number | 'hold';

export interface WebhookReceiver {
  url: string;
  /** every request, in arrival order */
  received: ReceivedDelivery[];
  /** requests answered 2xx */
  acknowledged(): ReceivedDelivery[];
  /** the receiver's plan for later requests */
  plan: ReceiverPlan;
  /** the secret signatures are checked with (set once the webhook is made) */
  secret: string;
  /** resolves with the next request matching `match` (or one already received) */
  next(match: (d: ReceivedDelivery) => boolean): Promise<ReceivedDelivery>;
  /** answers every held request with `status` */
  release(status?: number): void;
  close(): Promise<void>;
}

const header = (req: http.IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
};

function verify(secret: string, timestamp: string, body: Buffer, signature: string): boolean {
  const match = /^sha256=([0-9a-f]{64})$/.exec(signature);
  if (!match || secret === '') return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(match[1]!, 'hex'));
}

/**
 * A real HTTP receiver of outbound webhooks on loopback: it checks each request's signature with its own
 * HMAC code (not the server's), records it, and answers as its plan says (e.g. 500 on purpose to make the
 * server retry, or hold the request open while a replica is killed).
 */
export async function startWebhookReceiver(plan: ReceiverPlan = () => 200): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const waiters: { match: (d: ReceivedDelivery) => boolean; resolve: (d: ReceivedDelivery) => void }[] = [];
  const held: { res: http.ServerResponse; delivery: ReceivedDelivery }[] = [];
  const seen = new Map<string, number>();
  const receiver: WebhookReceiver = {
    url: '',
    received,
    plan,
    secret: '',
    acknowledged: () => received.filter((d) => d.answered !== null && d.answered >= 200 && d.answered < 300),
    next(match) {
      const already = received.find(match);
      if (already) return Promise.resolve(already);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    release(status = 200) {
      for (const { res, delivery } of held.splice(0)) {
        delivery.answered = status;
        if (!res.destroyed) res.writeHead(status).end('released');
      }
    },
    close: () =>
      new Promise((resolve) => {
        receiver.release(503);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const timestamp = header(req, 'x-svc-timestamp');
      let json: ReceivedDelivery['json'];
      try {
        json = JSON.parse(body.toString('utf8')) as ReceivedDelivery['json'];
      } catch {
        json = { id: '', type: '' };
      }
      const nth = seen.get(json.id) ?? 0;
      seen.set(json.id, nth + 1);
      const delivery: ReceivedDelivery = {
        webhookId: header(req, 'x-svc-webhook-id'),
        deliveryId: header(req, 'x-svc-delivery'),
        event: header(req, 'x-svc-event'),
        timestamp: Number(timestamp),
        signatureValid: verify(receiver.secret, timestamp, body, header(req, 'x-svc-signature')),
        body: body.toString('utf8'),
        json,
        answered: null,
      };
      received.push(delivery);
      const outcome = delivery.signatureValid
        ? receiver.plan({ eventId: json.id, nth, deliveryId: delivery.deliveryId })
        : 401;
      if (outcome === 'hold') held.push({ res, delivery });
      else {
        delivery.answered = outcome;
        res.writeHead(outcome, { 'content-type': 'text/plain' }).end(`answered ${outcome} to ${delivery.deliveryId}`);
      }
      for (const waiter of waiters.splice(0)) {
        if (waiter.match(delivery)) waiter.resolve(delivery);
        else waiters.push(waiter);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
