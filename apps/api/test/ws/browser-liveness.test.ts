import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../support/server';
import { BrowserHub } from '../../src/ws/browser-hub';
import { TestWorker, workerToken } from '@svc/test-kit';
import { openBrowser, SETUP_TIMEOUT_MS } from './clients';

describe('browser socket liveness and worker_status', () => {
  let server: TestServer;
  let cookie: string;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    cookie = await server.login('alice');
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => server?.close());

  it('cuts a client that stops answering pings and keeps one that answers', async () => {
    // The hub's ping rounds run when the test says so (its interval is faked, nothing else is).
    jest.useFakeTimers({
      doNotFake: [
        'Date',
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setTimeout',
        'clearTimeout',
      ],
    });
    const hub = new BrowserHub(server.deps, { pingIntervalMs: 100 });
    const pingRound = () => jest.advanceTimersByTime(100);
    const http: Server = createServer();
    http.on('upgrade', (req, socket, head) => {
      hub.upgrade(req, socket, head).catch(() => socket.destroy());
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/svc/ws`;
    const headers = { cookie, origin: server.deps.config.publicUrl };
    const open = (autoPong: boolean) =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(url, { headers, autoPong });
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    /** The next ping `ws` receives, answered (autoPong) and the answer handled by the hub. */
    const pinged = (ws: WebSocket) =>
      new Promise<void>((resolve, reject) => {
        const onClose = (code: number) => reject(new Error(`socket closed (${code}) while waiting for a ping`));
        const onMessage = (data: WebSocket.RawData) => {
          if (JSON.parse(data.toString()).type !== 'error') return;
          ws.off('message', onMessage).off('close', onClose);
          resolve();
        };
        ws.once('close', onClose).once('ping', () => {
          // The hub reads a socket's frames in order: the answer to a later request comes after the pong.
          ws.on('message', onMessage).send(JSON.stringify({ type: 'subscribe', workflow_id: 'no-such-workflow' }));
        });
      });
    try {
      const [mute, lively] = await Promise.all([open(false), open(true)]);
      expect(hub.size).toBe(2);
      const closed = new Promise<number>((resolve) => mute.once('close', (code) => resolve(code)));
      let answered = pinged(lively);
      pingRound(); // both are pinged; only lively answers
      await answered;
      answered = pinged(lively);
      pingRound(); // mute is cut; lively answered the last ping, so it is pinged again
      expect(await closed).toBe(1006); // terminated, no close handshake
      await answered;
      answered = pinged(lively);
      pingRound();
      await answered;
      expect(lively.readyState).toBe(WebSocket.OPEN);
      expect(hub.size).toBe(1);
      lively.close();
    } finally {
      await hub.close();
      jest.useRealTimers();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it('tells every browser when a worker comes online and goes offline', async () => {
    const { ws, inbox } = await openBrowser(server, cookie);
    const worker = await TestWorker.start(server, await workerToken(server), 'visible', 2);
    expect((await inbox.next((m) => m.type === 'worker_status' && m.data.status === 'online')).data).toMatchObject({
      id: worker.id,
      name: 'visible',
      capacity: 2,
      active: 0,
    });
    worker.close();
    expect((await inbox.next((m) => m.type === 'worker_status' && m.data.status === 'offline')).data).toMatchObject({
      id: worker.id,
    });
    ws.close();
  });
});
