import type { DispatchMessage, ExecMessage, ExecResultMessage } from '@svc/protocol';
import { eventually, TEST_PROVIDERS, TestWorker } from '@svc/test-kit';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { BackoffOptions } from '@svc/client';
import { LinkError } from '../../src/link/server-link';
import { Uplink } from '../../src/link/uplink';
import { WorkerLink, workerSocketUrl } from '../../src/link/worker-link';
import { SERVER_SETUP_MS, startServerFixture, type ServerFixture } from '../support/real-server';

describe('WorkerLink', () => {
  it('derives the socket URL from the server URL', () => {
    expect(workerSocketUrl('https://svc.example.com/base/')).toBe('wss://svc.example.com/base/svc/worker/ws');
    expect(workerSocketUrl('http://127.0.0.1:3000')).toBe('ws://127.0.0.1:3000/svc/worker/ws');
  });
});

describe.each(TEST_PROVIDERS)('WorkerLink against the real server on %s', (provider) => {
  let server: ServerFixture;
  let link: WorkerLink | undefined;
  const others: TestWorker[] = [];
  let names = 0;

  beforeAll(async () => {
    server = await startServerFixture({ provider, env: { WORKER_HEARTBEAT_SECONDS: '1' } });
  }, SERVER_SETUP_MS);
  afterAll(() => server?.close());
  afterEach(() => {
    link?.stop();
    link = undefined;
    for (const worker of others.splice(0)) worker.close();
  });

  function makeLink(
    overrides: {
      token?: string;
      onDispatch?: (m: DispatchMessage) => void;
      serveExec?: (m: ExecMessage) => Promise<ExecResultMessage>;
      active?: () => string[];
    } = {},
  ) {
    const fatal: LinkError[] = [];
    const registration = {
      name: `w-test-${++names}`,
      labels: ['gpu'],
      capacity: 2,
      version: '0.1.0',
      hostname: 'host-a',
    };
    const uplink = new Uplink();
    link = new WorkerLink({
      serverUrl: server.api.url,
      token: overrides.token ?? server.token,
      registration,
      uplink,
      handlers: {
        dispatch: overrides.onDispatch ?? (() => undefined),
        serveExec: overrides.serveExec ?? (() => new Promise<never>(() => undefined)),
        activeWorkflows: overrides.active ?? (() => []),
      },
      onFatal: (e) => fatal.push(e),
      reconnect: { baseMs: 20, maxMs: 100, jitter: 0.5 },
    });
    return { link, uplink, fatal, registration };
  }

  /** A workflow of alice's project assigned to the named worker (the server dispatches `start` to it). */
  async function workflowFor(workerName: string, requirement = 'Make a site'): Promise<string> {
    const workerId = await server.alice.workerId(workerName);
    return (await server.alice.createWorkflow(server.projectId, requirement, { worker_id: workerId })).id;
  }

  const listed = async (name: string) =>
    (await server.alice.json<Array<Record<string, unknown>>>('/workers')).find((w) => w.name === name);

  it('registers with its bearer token and protocol version, then heart-beats', async () => {
    const { link, registration } = makeLink();
    link.start();
    await eventually(() => link.isRegistered);
    const registered = await listed(registration.name);
    expect(registered).toMatchObject({
      name: registration.name,
      labels: ['gpu'],
      capacity: 2,
      version: '0.1.0',
      status: 'online',
    });
    // heartbeats (every second here) keep moving the worker's last_seen_at
    await eventually(async () => (await listed(registration.name))?.last_seen_at !== registered?.last_seen_at, {
      what: 'a heartbeat',
    });
  });

  it('passes dispatches on', async () => {
    const dispatches: DispatchMessage[] = [];
    const { link, registration } = makeLink({ onDispatch: (m) => dispatches.push(m) });
    link.start();
    await eventually(() => link.isRegistered);
    const id = await workflowFor(registration.name, 'Make a site');
    const start = await eventually(() => dispatches.find((d) => d.action === 'start') ?? false);
    expect(start).toMatchObject({
      action: 'start',
      workflow_id: id,
      project_id: server.projectId,
      requirement: 'Make a site',
    });
    expect(link.isRegistered).toBe(true);
  });

  it('drops acknowledged updates and sends the queued ones, in order, once the server is back', async () => {
    const dispatches: DispatchMessage[] = [];
    let active: string[] = [];
    const { link, uplink, registration } = makeLink({ onDispatch: (m) => dispatches.push(m), active: () => active });
    link.start();
    await eventually(() => link.isRegistered);
    const id = await workflowFor(registration.name, 'Build a todo app');
    const start = await eventually(() => dispatches.find((d) => d.workflow_id === id && d.action === 'start') ?? false);
    active = [id];
    uplink.beginWorkflow(id, start.last_seq);
    uplink.sendUpdate(id, { kind: 'status', data: { status: 'planning' } });
    await eventually(() => uplink.outbox.size === 0, { what: 'the first ack' });
    expect((await server.alice.workflow(id)).status).toBe('planning');

    await server.api.stop();
    // While disconnected, new updates queue up and go out once the link has registered again.
    uplink.sendUpdate(id, { kind: 'title', data: { title: 'Build a todo app' } });
    uplink.sendUpdate(id, { kind: 'status', data: { status: 'running' } });
    expect(uplink.outbox.size).toBe(2);
    await server.api.restart();
    await eventually(() => link.isRegistered && uplink.outbox.size === 0, { what: 'the resend after reconnecting' });

    const stored = await server.alice.workflow(id);
    expect(stored).toMatchObject({ status: 'running', title: 'Build a todo app' });
  });

  it('relays an exec request to the named worker and resolves with its exec_result', async () => {
    const dispatches: DispatchMessage[] = [];
    const { link, uplink, registration } = makeLink({ onDispatch: (m) => dispatches.push(m) });
    link.start();
    await eventually(() => link.isRegistered);
    const id = await workflowFor(registration.name);
    await eventually(() => dispatches.some((d) => d.workflow_id === id && d.action === 'start'));
    const gpu = await TestWorker.start(server.api, server.token, 'gpu-box');
    gpu.send({ type: 'heartbeat' });
    others.push(gpu);
    const pending = uplink.requestExec({
      targetWorker: 'gpu-box',
      workflowId: id,
      command: 'nvidia-smi',
      timeoutSeconds: 10,
    });
    const exec = await gpu.inbox.next((m) => m.type === 'exec');
    expect(exec).toMatchObject({ workflow_id: id, command: 'nvidia-smi' });
    gpu.send({ type: 'exec_result', request_id: exec.request_id, exit_code: 0, output: 'GPU 0', timed_out: false });
    await expect(pending).resolves.toMatchObject({ exit_code: 0, output: 'GPU 0' });
  });

  it('fails a pending relay when the connection drops', async () => {
    const dispatches: DispatchMessage[] = [];
    const { link, uplink, registration } = makeLink({ onDispatch: (m) => dispatches.push(m) });
    link.start();
    await eventually(() => link.isRegistered);
    const id = await workflowFor(registration.name);
    await eventually(() => dispatches.some((d) => d.workflow_id === id && d.action === 'start'));
    const other = await TestWorker.start(server.api, server.token, 'silent-box');
    other.send({ type: 'heartbeat' });
    others.push(other);
    const pending = uplink.requestExec({ targetWorker: 'silent-box', workflowId: id, command: 'true' });
    await other.inbox.next((m) => m.type === 'exec');
    await server.api.stop();
    try {
      await expect(pending).rejects.toThrow('connection to the server was lost');
    } finally {
      await server.api.restart();
    }
  });

  it("serves another worker's exec through its handler and sends the result back", async () => {
    const served: ExecMessage[] = [];
    const { link, uplink, registration } = makeLink({
      serveExec: async (m) => {
        served.push(m);
        return { type: 'exec_result', request_id: m.request_id, exit_code: 0, output: 'ok', timed_out: false };
      },
    });
    link.start();
    await eventually(() => link.isRegistered);
    expect(uplink.workerId).toBeDefined();
    const requester = await TestWorker.start(server.api, server.token, `requester-${names}`);
    requester.send({ type: 'heartbeat' });
    others.push(requester);
    const id = await workflowFor(`requester-${names}`);
    await requester.dispatch(id, 'start');
    requester.send({
      type: 'exec_request',
      request_id: 'r-1',
      target_worker: registration.name,
      workflow_id: id,
      command: 'true',
    });
    const result = await requester.inbox.next((m) => m.type === 'exec_result' && m.request_id === 'r-1');
    expect(result).toMatchObject({ exit_code: 0, output: 'ok', timed_out: false });
    expect(served.map((m) => m.command)).toEqual(['true']);
  });

  it('refuses an exec relay while not registered', async () => {
    const { uplink } = makeLink();
    await expect(uplink.requestExec({ targetWorker: 'other', workflowId: 'wf1', command: 'true' })).rejects.toThrow(
      'not connected to the server',
    );
  });

  it('stops for good when the server refuses the token', async () => {
    const { link, fatal } = makeLink({ token: 'wrong' });
    link.start();
    await eventually(() => fatal.length > 0);
    expect(fatal[0]?.message).toBe('server refused the worker token (HTTP 401); check token / token_env');
  });
});

describe('WorkerLink against a bare socket server (answers the real server does not give on cue)', () => {
  // The real server closes with 4400 only for a `register` of another protocol version, which this
  // link never sends, and its heartbeat interval is a setting: a bare socket server shows the reaction.
  async function bareServer(onConnection: (socket: WebSocket) => void): Promise<WebSocketServer> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => wss.once('listening', resolve));
    wss.on('connection', onConnection);
    return wss;
  }
  function linkTo(
    wss: WebSocketServer,
    options: { active?: string[]; onFatal?: (e: LinkError) => void; reconnect?: BackoffOptions } = {},
  ) {
    const { port } = wss.address() as AddressInfo;
    return new WorkerLink({
      serverUrl: `http://127.0.0.1:${port}`,
      token: 't',
      registration: { name: 'w-bare', labels: [], capacity: 1, version: '0.1.0', hostname: 'h' },
      uplink: new Uplink(),
      handlers: {
        dispatch: () => undefined,
        serveExec: () => new Promise<never>(() => undefined),
        activeWorkflows: () => options.active ?? [],
      },
      onFatal: options.onFatal ?? (() => undefined),
      reconnect: options.reconnect ?? { baseMs: 20, maxMs: 100, jitter: 0.5 },
    });
  }
  const closeServer = (wss: WebSocketServer) => new Promise((resolve) => wss.close(resolve));

  it('reports what it runs in a heartbeat right after registering, not one interval later', async () => {
    let heard!: (message: unknown) => void;
    const heartbeat = new Promise<unknown>((resolve) => (heard = resolve));
    const wss = await bareServer((socket) => {
      socket.once('message', () =>
        socket.send(
          JSON.stringify({ type: 'registered', worker_id: 'w1', protocol_version: 1, heartbeat_seconds: 3600 }),
        ),
      );
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { type: string };
        if (message.type === 'heartbeat') heard(message);
      });
    });
    const link = linkTo(wss, { active: ['wf-running'] });
    try {
      link.start();
      expect(await heartbeat).toEqual({ type: 'heartbeat', active_workflows: ['wf-running'] });
    } finally {
      link.stop();
      await closeServer(wss);
    }
  });

  it('stops for good when the server closes with 4400 (unsupported protocol version)', async () => {
    let connections = 0;
    const wss = await bareServer((socket) => {
      connections++;
      socket.once('message', () => socket.close(4400, 'protocol 1 unsupported'));
    });
    const fatal: LinkError[] = [];
    const link = linkTo(wss, { onFatal: (e) => fatal.push(e) });
    // A reconnect would be a timer set when the socket closes: fake them to see every one.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'Date', 'hrtime', 'performance'] });
    try {
      link.start();
      // setImmediate is not faked: yield to the socket's I/O until the close arrives.
      while (fatal.length === 0) await new Promise((resolve) => setImmediate(resolve));
      expect(fatal[0]?.message).toContain('protocol 1 unsupported');
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
      link.stop();
      await closeServer(wss);
    }
    expect(connections).toBe(1);
  });

  it('reconnects at once, not after its back-off, when the server goes away (1001: it is shutting down)', async () => {
    let connections = 0;
    let second!: () => void;
    const reconnected = new Promise<void>((resolve) => (second = resolve));
    const wss = await bareServer((socket) => {
      if (++connections === 2) return second();
      socket.once('message', () => {
        socket.send(
          JSON.stringify({ type: 'registered', worker_id: 'w1', protocol_version: 1, heartbeat_seconds: 3600 }),
        );
        socket.close(1001, 'the server is shutting down; reconnect');
      });
    });
    // A back-off of an hour: only the going-away path reconnects before the test ends.
    const link = linkTo(wss, { reconnect: { baseMs: 3_600_000, maxMs: 3_600_000, jitter: 0 } });
    try {
      link.start();
      await reconnected;
      expect(connections).toBe(2);
    } finally {
      link.stop();
      await closeServer(wss);
    }
  });
});
