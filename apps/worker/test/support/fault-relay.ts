import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ErrorCode, UpdateMessage, WsErrorInfo } from '@svc/protocol';
import WebSocket, { WebSocketServer, type RawData } from 'ws';

/** A worker's REST call as the relay saw it: method and path (with its query). */
export interface RelayedCall {
  method: string;
  path: string;
}

/** The answer the relay gives in the server's place: a status and an error body of the contract. */
export interface FaultAnswer {
  status: number;
  code: ErrorCode;
  message: string;
}

/**
 * A real HTTP and WebSocket relay between a worker and the API server that a test steers: it forwards
 * everything, except the REST calls `restFault` answers (a 503 while "the database is down") and the
 * worker's updates `updateFault` refuses (as the server does when it cannot store one for now). It
 * records what it answered, refused and saw acknowledged, in order.
 */
export class FaultRelay {
  /** Decides, per REST call, whether the relay answers it instead of the server; null forwards it. */
  restFault: (call: RelayedCall) => FaultAnswer | null = () => null;
  /** Decides, per update the worker sends, whether it is refused; null forwards it. */
  updateFault: (update: UpdateMessage) => WsErrorInfo | null = () => null;
  /** The REST calls answered with a fault, in order. */
  readonly faulted: RelayedCall[] = [];
  /** Every update the worker sent (refused or forwarded), in order. */
  readonly updates: Array<UpdateMessage & { refused: boolean }> = [];
  /** The server's acks, in the order they reached the worker. */
  readonly acks: Array<{ workflow_id: string; seq: number }> = [];

  private readonly sockets = new Set<WebSocket>();

  private constructor(
    private readonly server: Server,
    private readonly target: URL,
    readonly url: string,
  ) {}

  /** Starts a relay on a free loopback port in front of the server at `targetUrl`. */
  static async start(targetUrl: string): Promise<FaultRelay> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const relay = new FaultRelay(server, new URL(targetUrl), `http://127.0.0.1:${port}`);
    server.on('request', (req, res) => relay.http(req, res));
    const wss = new WebSocketServer({ noServer: true });
    server.on('upgrade', (req, socket, head) =>
      wss.handleUpgrade(req, socket, head, (worker) => relay.socket(worker, req)),
    );
    return relay;
  }

  private http(req: IncomingMessage, res: ServerResponse): void {
    const call = { method: req.method ?? 'GET', path: req.url ?? '/' };
    const fault = this.restFault(call);
    if (fault) {
      this.faulted.push(call);
      // The body is read first, so the worker sees the answer rather than a reset upload.
      req.resume();
      req.on('end', () => {
        res.writeHead(fault.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: fault.code, message: fault.message, request_id: 'fault-relay' } }));
      });
      return;
    }
    const upstream = httpRequest(
      {
        host: this.target.hostname,
        port: this.target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: this.target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  }

  /** One worker socket: a socket of its own to the server, messages passed both ways (and updates filtered). */
  private socket(worker: WebSocket, req: IncomingMessage): void {
    const server = new WebSocket(`ws://${this.target.host}${req.url ?? '/'}`, {
      headers: req.headers.authorization ? { authorization: req.headers.authorization } : {},
    });
    this.sockets.add(worker).add(server);
    const early: string[] = [];
    server.on('open', () => {
      for (const text of early.splice(0)) server.send(text);
    });
    worker.on('message', (data: RawData) => {
      const text = data.toString();
      const message = JSON.parse(text) as { type: string };
      if (message.type === 'update') {
        const update = message as UpdateMessage;
        const error = this.updateFault(update);
        this.updates.push({ ...update, refused: error !== null });
        if (error) {
          worker.send(JSON.stringify({ type: 'error', error, workflow_id: update.workflow_id, seq: update.seq }));
          return;
        }
      }
      if (server.readyState === WebSocket.OPEN) server.send(text);
      else early.push(text);
    });
    server.on('message', (data: RawData) => {
      const text = data.toString();
      const message = JSON.parse(text) as { type: string; workflow_id?: string; seq?: number };
      if (message.type === 'ack') this.acks.push({ workflow_id: message.workflow_id!, seq: message.seq! });
      worker.send(text);
    });
    const closeBoth = (code: number, reason: Buffer) => {
      for (const socket of [worker, server]) {
        if (socket.readyState !== WebSocket.OPEN) socket.terminate();
        else if (code === 1000 || (code >= 3000 && code < 5000)) socket.close(code, reason);
        else socket.terminate();
      }
    };
    worker.on('close', closeBoth);
    server.on('close', closeBoth);
    server.on('unexpected-response', () => closeBoth(1006, Buffer.alloc(0)));
    worker.on('error', () => undefined);
    server.on('error', () => undefined);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A 503 as the server answers while its database cannot be reached (`unavailable`). */
export const unavailable = (message = 'the database is unavailable; try again later'): FaultAnswer => ({
  status: 503,
  code: 'unavailable',
  message,
});
