import WebSocket from 'ws';
import { WORKER_PROTOCOL_VERSION, type SnapshotData, type UpdateBody } from '@svc/protocol';
import type { ApiTarget } from './http';
import { POLL_SAFETY_CAP_MS } from './poll';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Message = any;

type Closed = { code: number; reason: string };

/**
 * Every JSON message a socket received, with waiting for one that matches. Waiting is for an event:
 * the optional `timeoutMs` exists for tests that assert something does *not* arrive; without it only
 * a far safety cap applies and the test runner's time-out is what fails a test.
 */
export class Inbox {
  readonly messages: Message[] = [];
  private waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  closed: Closed | null = null;
  private closeWaiters: ((c: Closed) => void)[] = [];

  push(message: Message): void {
    this.messages.push(message);
    this.waiters = this.waiters.filter((w) => (w.match(message) ? (w.resolve(message), false) : true));
  }

  onClose(code: number, reason: string): void {
    this.closed = { code, reason };
    for (const resolve of this.closeWaiters) resolve(this.closed);
  }

  /** The first message (already received or arriving) that matches. */
  next(match: (m: Message) => boolean, timeoutMs = POLL_SAFETY_CAP_MS): Promise<Message> {
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
      timer.unref();
      this.waiters.push({ match, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  whenClosed(timeoutMs = POLL_SAFETY_CAP_MS): Promise<Closed> {
    if (this.closed) return Promise.resolve(this.closed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`socket not closed within ${timeoutMs}ms`)), timeoutMs);
      timer.unref();
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

/** The WebSocket URL of a path on the server. */
export const wsUrl = (server: ApiTarget, path: string): string => server.url.replace(/^http/, 'ws') + path;

/** A browser's live socket (`/svc/ws`) signed in with a session cookie, from `origin` (the server's own by default). */
export function openBrowserSocket(
  server: ApiTarget,
  cookie: string,
  origin = server.url,
): Promise<{ ws: WebSocket; inbox: Inbox }> {
  return openSocket(wsUrl(server, '/svc/ws'), { cookie, origin });
}

/** A worker speaking the real protocol over a real socket, scripted by the test. */
export class TestWorker {
  id = '';
  private beat: ReturnType<typeof setInterval> | null = null;
  private constructor(
    readonly ws: WebSocket,
    readonly inbox: Inbox,
  ) {}

  static async connect(server: ApiTarget, token: string): Promise<TestWorker> {
    const { ws, inbox } = await openSocket(wsUrl(server, '/svc/worker/ws'), { authorization: `Bearer ${token}` });
    return new TestWorker(ws, inbox);
  }

  /** Connects and registers; resolves with the `registered` answer. */
  static async start(server: ApiTarget, token: string, name: string, capacity = 1): Promise<TestWorker> {
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

  /**
   * Heartbeats like a real worker until closed, so a test that outlasts WORKER_OFFLINE_AFTER_SECONDS
   * on a slow machine keeps its worker (heartbeats without `active_workflows` only prove liveness).
   */
  keepAlive(intervalMs = 1000): void {
    this.send({ type: 'heartbeat' });
    this.beat ??= setInterval(() => {
      if (this.ws.readyState === this.ws.OPEN) this.send({ type: 'heartbeat' });
    }, intervalMs);
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
    if (this.beat) clearInterval(this.beat);
    this.beat = null;
    this.ws.terminate();
  }
}

/** A snapshot update of `statuses.length` steps titled "Step 1", "Step 2", … */
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

/** A log entry update of step 0: `ls -la` with the given output. */
export const logEntry = (output: string): UpdateBody => ({
  kind: 'log_entry',
  data: { step_index: 0, tool_name: 'execute_on_worker', tool_input: { command: 'ls -la' }, output, is_error: false },
});
