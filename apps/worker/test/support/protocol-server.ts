import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  parseJsonMessage,
  WorkerToServerMessageSchema,
  type ServerToWorkerMessage,
  type WorkerToServerMessage,
} from '@svc/protocol';
import { WebSocketServer, type WebSocket } from 'ws';

export interface ProtocolServerOptions {
  token?: string;
  heartbeatSeconds?: number;
  /** Ack every update as it arrives (default true). */
  autoAck?: boolean;
  /** Extra REST routes; return false when the request is not handled. */
  rest?: (req: IncomingMessage, res: ServerResponse, body: Buffer) => boolean | Promise<boolean>;
}

/**
 * The server side of the worker protocol over a real HTTP server and WebSocket, for tests until
 * apps/api's worker endpoint exists: checks the bearer token, answers `register`, records and
 * (optionally) acks updates, and lets a test send any server message.
 */
export class ProtocolServer {
  readonly received: WorkerToServerMessage[] = [];
  /** Frames from the worker that do not fit the protocol; a test expects this to stay empty. */
  readonly violations: string[] = [];
  /** Distinct (workflow_id, seq) updates, the way the real server stores them. */
  readonly stored = new Map<string, WorkerToServerMessage>();
  autoAck: boolean;
  connections = 0;
  private socket: WebSocket | undefined;
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly http: Server,
    private readonly wss: WebSocketServer,
    readonly options: ProtocolServerOptions,
  ) {
    this.autoAck = options.autoAck ?? true;
  }

  static async start(options: ProtocolServerOptions = {}): Promise<ProtocolServer> {
    const wss = new WebSocketServer({ noServer: true });
    const http = createServer();
    const server = new ProtocolServer(http, wss, options);
    http.on('request', (req, res) => void server.handleRest(req, res));
    http.on('upgrade', (req, socket, head) => {
      const expected = `Bearer ${options.token ?? 'worker-token'}`;
      if (req.url !== '/svc/worker/ws' || req.headers.authorization !== expected) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => server.accept(ws));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  private accept(ws: WebSocket): void {
    this.socket = ws;
    this.connections++;
    ws.on('message', (raw) => {
      const parsed = parseJsonMessage(WorkerToServerMessageSchema, raw.toString());
      if (!parsed.ok) {
        this.violations.push(`${parsed.error.message} in ${raw.toString()}`);
        return;
      }
      const message = parsed.value;
      this.received.push(message);
      if (message.type === 'register') {
        this.send({
          type: 'registered',
          worker_id: 'w-1',
          protocol_version: 1,
          heartbeat_seconds: this.options.heartbeatSeconds ?? 30,
        });
      }
      if (message.type === 'update') {
        this.stored.set(`${message.workflow_id}:${message.seq}`, message);
        if (this.autoAck) this.send({ type: 'ack', workflow_id: message.workflow_id, seq: message.seq });
      }
      this.notify();
    });
    this.notify();
  }

  private async handleRest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const handled = (await this.options.rest?.(req, res, Buffer.concat(chunks))) ?? false;
    if (!handled) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { code: 'not_found', message: `no route ${req.method} ${req.url}`, request_id: 't' } }),
      );
    }
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  send(message: ServerToWorkerMessage | Record<string, unknown>): void {
    if (!this.socket) throw new Error('no worker connected');
    this.socket.send(JSON.stringify(message));
  }

  /** Closes the worker's socket abruptly, as a network failure would. */
  dropConnection(): void {
    this.socket?.terminate();
    this.socket = undefined;
  }

  closeConnection(code: number, reason: string): void {
    this.socket?.close(code, reason);
  }

  /** Resolves with the first received message (from the start) that matches. */
  async waitFor<T extends WorkerToServerMessage>(
    match: (m: WorkerToServerMessage) => m is T,
    timeoutMs?: number,
  ): Promise<T>;
  async waitFor(match: (m: WorkerToServerMessage) => boolean, timeoutMs?: number): Promise<WorkerToServerMessage>;
  async waitFor(match: (m: WorkerToServerMessage) => boolean, timeoutMs = 5000): Promise<WorkerToServerMessage> {
    await this.until(() => this.received.some(match), timeoutMs, 'a matching worker message');
    return this.received.find(match) as WorkerToServerMessage;
  }

  /** Waits until `condition` holds, re-checked on every received message and every 20 ms. */
  async until(condition: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 20);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Updates of one workflow in seq order, as stored (duplicates collapsed). */
  updates(workflowId: string): Extract<WorkerToServerMessage, { type: 'update' }>[] {
    return [...this.stored.values()]
      .filter(
        (m): m is Extract<WorkerToServerMessage, { type: 'update' }> =>
          m.type === 'update' && m.workflow_id === workflowId,
      )
      .sort((a, b) => a.seq - b.seq);
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}
