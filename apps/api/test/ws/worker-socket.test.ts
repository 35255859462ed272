import { eventually, openSocket, TestWorker, workerToken } from '@svc/test-kit';
import WebSocket from 'ws';
import { WORKER_PROTOCOL_VERSION, WS_CLOSE_UNSUPPORTED_VERSION } from '@svc/protocol';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body } from '../support/fixtures';
import { SETUP_TIMEOUT_MS } from './clients';

describe.each(TEST_PROVIDERS)('worker WebSocket on %s', (provider) => {
  let server: TestServer;
  let token: string;
  const url = () => `${server.url.replace(/^http/, 'ws')}/svc/worker/ws`;

  beforeAll(async () => {
    server = await startTestServer(provider);
    token = await workerToken(server);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => server?.close());

  it('refuses the upgrade without a token, with a bad one, and with a non-worker scope', async () => {
    await expect(openSocket(url(), {})).rejects.toMatchObject({ status: 401 });
    await expect(openSocket(url(), { authorization: 'Bearer not.a.jwt' })).rejects.toMatchObject({ status: 401 });
    const apiToken = await body(
      await server.request('/svc/api/token', {
        method: 'POST',
        as: await server.login('alice'),
        json: { scope: 'api' },
      }),
    );
    const refused = openSocket(url(), { authorization: `Bearer ${apiToken.token}` });
    await expect(refused).rejects.toMatchObject({ status: 403 });
    expect(JSON.parse((await refused.catch((e) => e)).body).error.code).toBe('forbidden');
    // A session cookie is not a worker credential either.
    await expect(openSocket(url(), { cookie: await server.login('root') })).rejects.toMatchObject({ status: 401 });
  });

  it('closes a register with another protocol version with 4400 and a reason', async () => {
    const { ws, inbox } = await openSocket(url(), { authorization: `Bearer ${token}` });
    ws.send(
      JSON.stringify({
        type: 'register',
        protocol_version: WORKER_PROTOCOL_VERSION + 1,
        name: 'future',
        labels: [],
        capacity: 1,
        version: '9',
        hostname: 'h',
      }),
    );
    const closed = await inbox.whenClosed();
    expect(closed.code).toBe(WS_CLOSE_UNSUPPORTED_VERSION);
    expect(closed.reason).toMatch(/unsupported worker protocol version 2/);
    expect(await server.deps.db.worker.count({ where: { name: 'future' } })).toBe(0);
  });

  it('requires register first and answers bad frames with errors instead of crashing', async () => {
    const early = await TestWorker.connect(server, token);
    early.send({ type: 'heartbeat' });
    expect((await early.inbox.next((m) => m.type === 'error')).error.message).toMatch(/first message must be register/);
    expect((await early.inbox.whenClosed()).code).toBe(1008);

    const worker = await TestWorker.start(server, token, 'frames');
    worker.ws.send('{not json');
    expect((await worker.inbox.next((m) => m.type === 'error')).error).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/invalid JSON/),
    });
    worker.send({ type: 'launch_missiles' });
    expect(
      (await worker.inbox.next((m) => m.type === 'error' && /unknown type/.test(m.error.message))).error.code,
    ).toBe('invalid_input');
    worker.send({ type: 'update', workflow_id: 'w', seq: 0, kind: 'title', data: { title: 'x' } });
    await worker.inbox.next((m) => m.type === 'error' && /seq/.test(m.error.message));
    worker.ws.send(Buffer.alloc(5 * 1024 * 1024, 0x20));
    expect((await worker.inbox.whenClosed()).code).toBe(1009);
    // The server is fine: a new worker still registers.
    const after = await TestWorker.start(server, token, 'after-frames');
    expect(after.id).toBeTruthy();
    after.close();
  });

  it('registers, lists the worker online with its fields, records heartbeats, and marks it offline on disconnect', async () => {
    const worker = await TestWorker.start(server, token, 'builder-1', 3);
    const registered = worker.inbox.ofType('registered')[0];
    expect(registered).toEqual({
      type: 'registered',
      worker_id: worker.id,
      protocol_version: WORKER_PROTOCOL_VERSION,
      heartbeat_seconds: server.deps.config.workers.heartbeatSeconds,
      lease_seconds: server.deps.config.workers.leaseSeconds,
    });
    const list = await body(await server.request('/svc/api/workers', { as: await server.login('alice') }));
    expect(list.find((w: { name: string }) => w.name === 'builder-1')).toEqual({
      id: worker.id,
      name: 'builder-1',
      labels: ['test'],
      capacity: 3,
      active: 0,
      status: 'online',
      last_seen_at: expect.any(String),
      version: '1.0.0',
      current_runs: [],
      admin_state: 'active',
    });
    const before = (await server.deps.db.worker.findUniqueOrThrow({ where: { id: worker.id } })).last_seen_at;
    await new Promise((r) => setTimeout(r, 20));
    worker.send({ type: 'heartbeat', active_workflows: [] });
    // Heartbeats are written in batches (decision 0068): this one is written once it has been handled.
    await eventually(async () => {
      await server.runtime.live.registry.persistHeartbeats(0);
      return (await server.deps.db.worker.findUniqueOrThrow({ where: { id: worker.id } })).last_seen_at > before;
    });

    worker.close();
    await eventually(
      async () => (await server.deps.db.worker.findUniqueOrThrow({ where: { id: worker.id } })).status === 'offline',
    );
    // Registering again under the same name keeps the worker's id.
    const again = await TestWorker.start(server, token, 'builder-1', 2);
    expect(again.id).toBe(worker.id);
    again.close();
  });

  it('answers GET /workers only to signed-in callers', async () => {
    expect((await server.request('/svc/api/workers')).status).toBe(401);
    expect((await server.request('/svc/api/workers', { as: token })).status).toBe(200);
  });

  it('keeps the newest connection when a worker connects twice under one name', async () => {
    const first = await TestWorker.start(server, token, 'twin');
    const second = await TestWorker.start(server, token, 'twin');
    expect((await first.inbox.whenClosed()).code).toBe(4409);
    expect(second.ws.readyState).toBe(WebSocket.OPEN);
    expect((await server.deps.db.worker.findUniqueOrThrow({ where: { id: second.id } })).status).toBe('online');
    second.close();
  });
});
