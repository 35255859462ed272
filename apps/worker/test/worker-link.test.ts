import type { DispatchMessage, ExecMessage, WorkerToServerMessage } from '@svc/protocol';
import { LinkError } from '../src/link/server-link';
import { WorkerLink, workerSocketUrl } from '../src/link/worker-link';
import { ProtocolServer } from './support/protocol-server';

const registration = { name: 'w-test', labels: ['gpu'], capacity: 2, version: '0.1.0', hostname: 'host-a' };
const isUpdate = (m: WorkerToServerMessage): m is Extract<WorkerToServerMessage, { type: 'update' }> =>
  m.type === 'update';

let server: ProtocolServer;
let link: WorkerLink | undefined;

function makeLink(
  overrides: { token?: string; onDispatch?: (m: DispatchMessage) => void; onExec?: (m: ExecMessage) => void } = {},
) {
  const fatal: LinkError[] = [];
  link = new WorkerLink({
    serverUrl: server.url,
    token: overrides.token ?? 'worker-token',
    registration,
    handlers: {
      onDispatch: overrides.onDispatch ?? (() => undefined),
      onExec: overrides.onExec ?? (() => undefined),
      onFatal: (e) => fatal.push(e),
    },
    activeWorkflows: () => ['wf-active'],
    reconnect: { baseMs: 20, maxMs: 100, jitter: 0.5 },
  });
  return { link, fatal };
}

beforeEach(async () => {
  server = await ProtocolServer.start({ heartbeatSeconds: 1 });
});

afterEach(async () => {
  link?.stop();
  link = undefined;
  await server.close();
  expect(server.violations).toEqual([]);
});

describe('WorkerLink', () => {
  it('derives the socket URL from the server URL', () => {
    expect(workerSocketUrl('https://svc.example.com/base/')).toBe('wss://svc.example.com/base/svc/worker/ws');
    expect(workerSocketUrl('http://127.0.0.1:3000')).toBe('ws://127.0.0.1:3000/svc/worker/ws');
  });

  it('registers with its bearer token and protocol version, then heart-beats', async () => {
    const { link } = makeLink();
    link.start();
    const register = await server.waitFor((m) => m.type === 'register');
    expect(register).toEqual({ type: 'register', protocol_version: 1, ...registration });
    await server.until(() => link.isRegistered);
    const heartbeat = await server.waitFor((m) => m.type === 'heartbeat', 3000);
    expect(heartbeat).toEqual({ type: 'heartbeat', active_workflows: ['wf-active'] });
  });

  it('drops acknowledged updates and resends the unacknowledged ones after a reconnect', async () => {
    const { link } = makeLink();
    link.start();
    await server.until(() => link.isRegistered);
    link.beginWorkflow('wf1', 4);
    link.sendUpdate('wf1', { kind: 'status', data: { status: 'planning' } });
    await server.until(() => link.outbox.size === 0, 2000, 'the first ack');

    server.autoAck = false;
    link.sendUpdate('wf1', { kind: 'title', data: { title: 'Build a todo app' } });
    await server.until(() => server.stored.has('wf1:6'));
    expect(link.outbox.size).toBe(1);

    server.autoAck = true;
    server.dropConnection();
    // While disconnected, new updates queue up and go out after the resent ones.
    link.sendUpdate('wf1', { kind: 'status', data: { status: 'running' } });
    await server.until(() => server.connections === 2 && link.outbox.size === 0, 5000, 'resend after reconnect');

    const sent = server.received.filter(isUpdate).map((u) => u.seq);
    expect(sent).toEqual([5, 6, 6, 7]);
    expect(server.updates('wf1').map((u) => [u.seq, u.kind])).toEqual([
      [5, 'status'],
      [6, 'title'],
      [7, 'status'],
    ]);
  });

  it('passes dispatches on and ignores malformed server frames', async () => {
    const dispatches: DispatchMessage[] = [];
    const { link } = makeLink({ onDispatch: (m) => dispatches.push(m) });
    link.start();
    await server.until(() => link.isRegistered);
    server.send({ type: 'dispatch', action: 'bogus' });
    server.send({
      type: 'dispatch',
      action: 'start',
      workflow_id: 'wf9',
      project_id: 'p1',
      requirement: 'Make a site',
      last_seq: 0,
    });
    await server.until(() => dispatches.length === 1);
    expect(dispatches[0]).toMatchObject({ action: 'start', workflow_id: 'wf9' });
    expect(link.isRegistered).toBe(true);
  });

  it('relays an exec request and resolves with the exec_result', async () => {
    const { link } = makeLink();
    link.start();
    await server.until(() => link.isRegistered);
    const pending = link.requestExec({
      targetWorker: 'gpu-box',
      workflowId: 'wf1',
      command: 'nvidia-smi',
      timeoutSeconds: 10,
    });
    const request = await server.waitFor(
      (m): m is Extract<WorkerToServerMessage, { type: 'exec_request' }> => m.type === 'exec_request',
    );
    expect(request).toMatchObject({
      target_worker: 'gpu-box',
      workflow_id: 'wf1',
      command: 'nvidia-smi',
      timeout_seconds: 10,
    });
    server.send({
      type: 'exec_result',
      request_id: request.request_id,
      exit_code: 0,
      output: 'GPU 0',
      timed_out: false,
    });
    await expect(pending).resolves.toMatchObject({ exit_code: 0, output: 'GPU 0' });
  });

  it('fails a pending relay when the connection drops', async () => {
    const { link } = makeLink();
    link.start();
    await server.until(() => link.isRegistered);
    const pending = link.requestExec({ targetWorker: 'other', workflowId: 'wf1', command: 'true' });
    await server.waitFor((m) => m.type === 'exec_request');
    server.dropConnection();
    await expect(pending).rejects.toThrow('connection to the server was lost');
  });

  it('stops for good when the server refuses the token', async () => {
    const { link, fatal } = makeLink({ token: 'wrong' });
    link.start();
    await server.until(() => fatal.length > 0);
    expect(fatal[0]?.message).toBe('server refused the worker token (HTTP 401); check token / token_env');
  });

  it('stops for good when the server closes with 4400 (unsupported protocol version)', async () => {
    const { link, fatal } = makeLink();
    link.start();
    await server.until(() => link.isRegistered);
    // A reconnect would be a timer set when the socket closes: fake them from here on to see every one.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'Date', 'hrtime', 'performance'] });
    try {
      server.closeConnection(4400, 'protocol 1 unsupported');
      while (fatal.length === 0) await new Promise((resolve) => setImmediate(resolve));
      expect(fatal[0]?.message).toContain('protocol 1 unsupported');
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
    expect(server.connections).toBe(1);
  });
});
