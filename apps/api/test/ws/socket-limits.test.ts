import { eventually, logEntry, TestWorker, workerToken } from '@svc/test-kit';
import { WS_CLOSE_RATE_LIMITED } from '@svc/protocol';
import { MessageBucket } from '../../src/ws/rate-limit';
import { MAX_WORKER_BACKLOG_BYTES } from '../../src/ws/worker-connection';
import type { IngestLock } from '../../src/ingest/ingest-lock';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { createProject, createWorkflow } from '../support/fixtures';
import { openBrowser, SETUP_TIMEOUT_MS } from './clients';

describe('MessageBucket', () => {
  it('allows a burst, then the refill rate, and says how long until the next message is allowed', () => {
    let now = 0;
    const bucket = new MessageBucket({ perSecond: 10, burst: 3 }, () => now);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    expect(bucket.debtMs()).toBe(100); // one message over: paid off after 100 ms
    now += 200;
    expect(bucket.take()).toBe(true);
    now += 10_000;
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
  });
});

/**
 * Issue 12, finding 5: 20,000 `subscribe` messages on one browser socket kept the database busy and
 * pushed /svc/api/health to 21-23 s. Each socket now has a message rate limit: a browser past it is
 * closed with 4429; a worker is slowed down (its socket is not read until the bucket refills), so its
 * legit bursts (an outbox resent after a reconnect) still go through.
 */
describe.each(TEST_PROVIDERS)('per-socket message rate limits on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let projectId: string;
  let workflowId: string;

  beforeAll(async () => {
    server = await startTestServer(provider, {
      WS_BROWSER_MESSAGES_PER_SECOND: '1',
      WS_BROWSER_MESSAGE_BURST: '20',
      WS_WORKER_MESSAGES_PER_SECOND: '50',
      WS_WORKER_MESSAGE_BURST: '10',
    });
    ann = await server.login('ann');
    projectId = (await createProject(server, ann)).id;
    workflowId = (await createWorkflow(server, ann, projectId)).id;
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => server?.close());

  it('answers a browser within its limit as usual', async () => {
    const { ws, inbox } = await openBrowser(server, ann);
    for (let i = 0; i < 5; i++) ws.send(JSON.stringify({ type: 'subscribe', workflow_id: workflowId }));
    await inbox.next((m) => m.type === 'subscribed');
    expect(inbox.closed).toBeNull();
    ws.close();
  });

  it('closes a browser socket that floods it with 4429, and the server stays responsive', async () => {
    const { ws, inbox } = await openBrowser(server, ann);
    const flood = JSON.stringify({ type: 'subscribe', workflow_id: workflowId, since_seq: 0 });
    for (let i = 0; i < 2000 && ws.readyState === ws.OPEN; i++) ws.send(flood);
    const closed = await inbox.whenClosed();
    expect(closed).toEqual({ code: WS_CLOSE_RATE_LIMITED, reason: expect.stringMatching(/too many messages/) });
    // fewer answers than messages: the flood was cut, not worked through
    expect(inbox.ofType('subscribed').length).toBeLessThan(100);
    expect((await server.request('/svc/api/health')).status).toBe(200);
  });

  it('slows a worker down instead of closing it: a burst far past its limit is stored and acked in full', async () => {
    const worker = await TestWorker.start(server, await workerToken(server), 'bursty', 5);
    const { id } = await createWorkflow(server, ann, projectId, 'burst');
    const dispatch = await worker.dispatch(id, 'start');
    const first = dispatch.last_seq + 1;
    const count = 100;
    for (let seq = first; seq < first + count; seq++) worker.update(id, seq, logEntry(`line ${seq}`));
    await worker.inbox.next((m) => m.type === 'ack' && m.seq === first + count - 1);
    const acked = new Set(worker.inbox.ofType('ack').map((m) => m.seq));
    expect(acked.size).toBe(count);
    expect(worker.inbox.ofType('error')).toEqual([]);
    expect(worker.inbox.closed).toBeNull();
    expect(await server.deps.db.executionLogEntry.count({ where: { workflow_id: id } })).toBe(count);
    // and it was paced: the messages past the burst waited for the refill
    const session = server.runtime.live.registry.connected().find((s) => s.name === 'bursty') as unknown as {
      delayedMessages: number;
    };
    expect(session.delayedMessages).toBeGreaterThan(0);
    worker.close();
  });

  it('stops reading a worker while its updates waiting for a commit pass the byte bound, then stores them all', async () => {
    const worker = await TestWorker.start(server, await workerToken(server), 'bulky', 5);
    const { id } = await createWorkflow(server, ann, projectId, 'bulky');
    const first = (await worker.dispatch(id, 'start')).last_seq + 1;
    // Few large frames: fewer than the message burst (10 here), so only the byte bound stops reading.
    const frame = 2 * 1024 * 1024;
    const count = Math.ceil((2 * MAX_WORKER_BACKLOG_BYTES) / frame);
    const session = server.runtime.live.registry.connected().find((s) => s.name === 'bulky') as unknown as {
      readingPaused: boolean;
      peakBacklogBytes: number;
    };
    // Nothing commits while the test holds the ingest lock, so every update read stays in memory.
    let release = (): void => undefined;
    const { lock } = (server.runtime.live.ingest as unknown as { deps: { lock: IngestLock } }).deps;
    const held = lock.exclusive(() => new Promise<void>((resolve) => (release = resolve)));
    for (let seq = first; seq < first + count; seq++) worker.update(id, seq, logEntry('x'.repeat(frame)));
    await eventually(() => session.readingPaused);
    release();
    await held;
    await worker.inbox.next((m) => m.type === 'ack' && m.seq === first + count - 1);
    expect(new Set(worker.inbox.ofType('ack').map((m) => m.seq)).size).toBe(count);
    expect(await server.deps.db.executionLogEntry.count({ where: { workflow_id: id } })).toBe(count);
    // it held about the bound, never the whole burst
    expect(session.peakBacklogBytes).toBeLessThan(count * frame);
    worker.close();
  });
});
