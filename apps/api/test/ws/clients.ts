import WebSocket from 'ws';
import { WORKER_PROTOCOL_VERSION, type SnapshotData, type UpdateBody } from '@svc/protocol';
import type { TestServer } from '../support/server';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Message = any;

/** Every JSON message a socket received, with waiting for one that matches. */
export class Inbox {
  readonly messages: Message[] = [];
  private waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  closed: { code: number; reason: string } | null = null;
  private closeWaiters: ((c: { code: number; reason: string }) => void)[] = [];

  push(message: Message): void {
    this.messages.push(message);
    this.waiters = this.waiters.filter((w) => (w.match(message) ? (w.resolve(message), false) : true));
  }

  onClose(code: number, reason: string): void {
    this.closed = { code, reason };
    for (const resolve of this.closeWaiters) resolve(this.closed);
  }

  /** The first message (already received or arriving) that matches. */
  next(match: (m: Message) => boolean, timeoutMs = 5000): Promise<Message> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`no matching message within ${timeoutMs}ms; got ${JSON.stringify(this.messages.slice(-5))}`),
          ),
        timeoutMs,
      );
      this.waiters.push({ match, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  whenClosed(timeoutMs = 5000): Promise<{ code: number; reason: string }> {
    if (this.closed) return Promise.resolve(this.closed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('socket not closed in time')), timeoutMs);
      this.closeWaiters.push((c) => (clearTimeout(timer), resolve(c)));
    });
  }

  ofType(type: string): Message[] {
    return this.messages.filter((m) => m.type === type);
  }
}

/** Opens a socket; resolves once open, rejects with the HTTP status when the upgrade is refused. */
export function openSocket(url: string, headers: Record<string, string>): Promise<{ ws: WebSocket; inbox: Inbox }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const inbox = new Inbox();
    ws.on('message', (data) => inbox.push(JSON.parse(data.toString())));
    ws.on('close', (code, reason) => inbox.onClose(code, reason.toString()));
    ws.once('open', () => resolve({ ws, inbox }));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () =>
        reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body: text })),
      );
    });
    ws.once('error', (err) => reject(err));
  });
}

const wsUrl = (server: Pick<TestServer, 'url'>, path: string) => server.url.replace(/^http/, 'ws') + path;

/** A browser socket signed in with a session cookie, from the server's own origin. */
export async function openBrowser(server: TestServer, cookie: string): Promise<{ ws: WebSocket; inbox: Inbox }> {
  return openSocket(wsUrl(server, '/svc/ws'), { cookie, origin: server.deps.config.publicUrl });
}

/** A worker-scope token, issued the real way: an administrator asks POST /token for one. */
export async function workerToken(server: TestServer): Promise<string> {
  const res = await server.request('/svc/api/token', {
    method: 'POST',
    as: await server.login('root'),
    json: { scope: 'worker' },
  });
  if (res.status !== 201) throw new Error(`worker token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** A worker speaking the real protocol over a real socket, scripted by the test. */
export class TestWorker {
  id = '';
  private constructor(
    readonly ws: WebSocket,
    readonly inbox: Inbox,
  ) {}

  static async connect(server: Pick<TestServer, 'url'>, token: string): Promise<TestWorker> {
    const { ws, inbox } = await openSocket(wsUrl(server, '/svc/worker/ws'), { authorization: `Bearer ${token}` });
    return new TestWorker(ws, inbox);
  }

  /** Connects and registers; resolves with the `registered` answer. */
  static async start(server: Pick<TestServer, 'url'>, token: string, name: string, capacity = 1): Promise<TestWorker> {
    const worker = await TestWorker.connect(server, token);
    worker.send({
      type: 'register',
      protocol_version: WORKER_PROTOCOL_VERSION,
      name,
      labels: ['test'],
      capacity,
      version: '1.0.0',
      hostname: 'test-host',
    });
    worker.id = (await worker.inbox.next((m) => m.type === 'registered')).worker_id;
    return worker;
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  update(workflowId: string, seq: number, body: UpdateBody): void {
    this.send({ type: 'update', workflow_id: workflowId, seq, ...body });
  }

  /** Sends an update and waits for its ack (or the error that refuses it). */
  async store(workflowId: string, seq: number, body: UpdateBody): Promise<Message> {
    const before = this.inbox.messages.length;
    this.update(workflowId, seq, body);
    return this.inbox.next(
      (m) =>
        (m.type === 'ack' && m.workflow_id === workflowId && m.seq === seq) ||
        (m.type === 'error' && this.inbox.messages.indexOf(m) >= before),
    );
  }

  dispatch(workflowId: string, action?: string, timeoutMs?: number): Promise<Message> {
    return this.inbox.next(
      (m) => m.type === 'dispatch' && m.workflow_id === workflowId && (!action || m.action === action),
      timeoutMs,
    );
  }

  close(): void {
    this.ws.terminate();
  }
}

export const snapshot = (
  phase: SnapshotData['phase'],
  current: number | null,
  statuses: ('pending' | 'running' | 'done')[],
): UpdateBody => ({
  kind: 'snapshot',
  data: {
    phase,
    current_step: current,
    steps: statuses.map((status, i) => ({ title: `Step ${i + 1}`, description: `Do part ${i + 1}`, status })),
    memo: [],
  },
});

export const logEntry = (output: string): UpdateBody => ({
  kind: 'log_entry',
  data: { step_index: 0, tool_name: 'execute_on_worker', tool_input: { command: 'ls -la' }, output, is_error: false },
});

/** Closes the workers, waits until the server has handled their loss, and finishes what is left in the queue. */
export async function resetWorkers(server: TestServer, workers: TestWorker[]): Promise<void> {
  for (const worker of workers.splice(0)) worker.close();
  const { live } = server.runtime;
  const until = Date.now() + 20_000;
  while (live.registry.connected().length > 0) {
    if (Date.now() > until) throw new Error('the server did not handle the closed worker sockets');
    await new Promise((r) => setTimeout(r, 10));
  }
  await live.background.settle();
  await server.deps.db.workflow.updateMany({
    where: { status: { notIn: ['completed', 'failed', 'cancelled'] } },
    data: { status: 'cancelled' },
  });
}

/** Starting a server on a fresh database can take seconds on a busy machine. */
export const SETUP_TIMEOUT_MS = 30_000;
