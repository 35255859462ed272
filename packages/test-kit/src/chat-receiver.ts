import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a chat receiver got. */
export interface ChatRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** the body as JSON (undefined when it is not JSON) */
  json: unknown;
  /** the status it was answered with */
  status: number;
}

export interface ChatReceiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  readonly requests: ChatRequest[];
  /** answers the next `count` requests with `status` (e.g. 500, to make the sender retry) */
  failNext(count: number, status?: number): void;
  /** the first request (received before or after the call) that matches; an event, not a poll */
  nextRequest(match?: (request: ChatRequest) => boolean): Promise<ChatRequest>;
  close(): Promise<void>;
}

/**
 * A real HTTP server on a loopback port standing in for a chat's incoming webhook (Slack, Teams,
 * Discord all take a JSON POST and answer 2xx): it records every request and can fail on purpose.
 */
export async function startChatReceiver(): Promise<ChatReceiver> {
  const requests: ChatRequest[] = [];
  const waiting = new Set<{ match: (r: ChatRequest) => boolean; resolve: (r: ChatRequest) => void }>();
  let failures: { count: number; status: number } = { count: 0, status: 500 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      let status = 200;
      if (failures.count > 0) {
        failures = { ...failures, count: failures.count - 1 };
        status = failures.status;
      }
      const request: ChatRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        json,
        status,
      };
      requests.push(request);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'failing on purpose');
      for (const waiter of [...waiting])
        if (waiter.match(request)) {
          waiting.delete(waiter);
          waiter.resolve(request);
        }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(count, status = 500) {
      failures = { count, status };
    },
    nextRequest(match = () => true) {
      const earlier = requests.find(match);
      if (earlier) return Promise.resolve(earlier);
      return new Promise((resolve) => waiting.add({ match, resolve }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
