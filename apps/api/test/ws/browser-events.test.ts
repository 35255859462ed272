import { eventually, logEntry, snapshot, TestWorker, type Inbox, type Message } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { storedStream } from '../support/events';
import { BrowserClient, WS_CLOSE_TOO_SLOW } from '../../src/ws/browser-client';
import { addMember, createProject, createWorkflow } from '../support/fixtures';
import { openBrowser, workflowEvents, workerSuite } from './clients';

describe.each(TEST_PROVIDERS)('browser events on %s', (provider) => {
  const suite = workerSuite(provider);

  async function running(name: string): Promise<{ worker: TestWorker; id: string; seq: { next: number } }> {
    const worker = await TestWorker.start(suite.server, suite.token, name);
    suite.workers.push(worker);
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const { last_seq } = await worker.dispatch(id, 'start');
    return { worker, id, seq: { next: last_seq + 1 } };
  }
  /**
   * Sends a request now and waits for its answer (an error: no such workflow). Events are routed to the
   * sockets before the update that caused them is acknowledged, and one socket delivers in order, so once
   * the answer is here every event routed before the request would have arrived before it.
   */
  async function roundTrip(client: { ws: { send(text: string): void }; inbox: Inbox }): Promise<void> {
    const before = client.inbox.messages.length;
    client.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: 'no-such-workflow' }));
    await client.inbox.next((m) => m.type === 'error' && client.inbox.messages.indexOf(m) >= before);
  }

  it('replays stored events after since_seq, then live ones, with no gap and no duplicate across reconnects', async () => {
    const { worker, id, seq } = await running('replay');
    for (let i = 0; i < 5; i++) await worker.store(id, seq.next++, logEntry(`before ${i}`));
    const first = await openBrowser(suite.server, suite.alice);
    first.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id, since_seq: 0 }));
    const subscribed = await first.inbox.next((m) => m.type === 'subscribed');
    const replayed = workflowEvents(first.inbox, id);
    expect(replayed.map((e: Message) => e.seq)).toEqual(replayed.map((_: Message, i: number) => i + 1));
    expect(subscribed.last_seq).toBe(replayed.length);
    expect(first.inbox.messages.indexOf(subscribed)).toBe(first.inbox.messages.length - 1);
    first.ws.close();

    // Updates keep coming while the page is away and while it subscribes again.
    for (let i = 0; i < 5; i++) await worker.store(id, seq.next++, logEntry(`away ${i}`));
    const second = await openBrowser(suite.server, suite.alice);
    second.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id, since_seq: subscribed.last_seq }));
    const burst = Array.from({ length: 20 }, () => seq.next++);
    for (const s of burst) worker.update(id, s, logEntry(`during ${s}`));
    await second.inbox.next((m) => m.type === 'subscribed');
    await worker.inbox.next((m) => m.type === 'ack' && m.seq === burst[burst.length - 1]);
    const stored = await storedStream(suite.server.deps.db, suite.server.deps.dbProvider, id);
    await eventually(() => workflowEvents(second.inbox, id).length === stored.length - subscribed.last_seq);
    const received = workflowEvents(second.inbox, id);
    expect(received.map((e: Message) => e.seq)).toEqual(
      stored.filter((e) => e.seq > subscribed.last_seq).map((e) => e.seq),
    );
    expect(received.map((e: Message) => e.type)).toEqual(
      stored.filter((e) => e.seq > subscribed.last_seq).map((e) => e.type),
    );
    expect(received[0]).toMatchObject({
      project_id: suite.projectId,
      ts: expect.any(String),
      data: { kind: 'log_entry' },
    });
    second.ws.close();
  });

  it('sends plan_step_status for each changed step, llm_call and workflow_update live', async () => {
    const { worker, id, seq } = await running('live');
    const { ws, inbox } = await openBrowser(suite.server, suite.alice);
    ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id }));
    await inbox.next((m) => m.type === 'subscribed');
    await worker.store(id, seq.next++, snapshot('executing', 0, ['running', 'pending', 'pending']));
    await worker.store(id, seq.next++, snapshot('executing', 1, ['done', 'running', 'pending']));
    await worker.store(id, seq.next++, {
      kind: 'llm_call',
      data: { phase: 'executing', model: 'm', prompt_tokens: 3, completion_tokens: 4, latency_ms: 5, step_index: 1 },
    });
    await inbox.next((m) => m.type === 'llm_call');
    expect(inbox.ofType('plan_step_status').map((m) => m.data)).toEqual([
      { index: 0, title: 'Step 1', status: 'running' },
      { index: 1, title: 'Step 2', status: 'pending' },
      { index: 2, title: 'Step 3', status: 'pending' },
      { index: 0, title: 'Step 1', status: 'done' },
      { index: 1, title: 'Step 2', status: 'running' },
    ]);
    expect(inbox.ofType('workflow_update').map((m) => m.data.kind)).toEqual(['snapshot', 'snapshot', 'llm_call']);
    expect(inbox.ofType('llm_call')[0].data).toMatchObject({
      id: expect.any(String),
      prompt_tokens: 3,
      step_index: 1,
      created_at: expect.any(String),
    });
    ws.close();
  });

  it('tells a browser of another project nothing about this one', async () => {
    const { worker, id, seq } = await running('isolated');
    const bob = await suite.server.login('bob');
    const bobProject = (await createProject(suite.server, bob, 'Bob')).id;
    const own = await openBrowser(suite.server, suite.alice);
    const other = await openBrowser(suite.server, bob);
    own.ws.send(JSON.stringify({ type: 'subscribe_project', project_id: suite.projectId }));
    other.ws.send(JSON.stringify({ type: 'subscribe_project', project_id: bobProject }));
    other.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id, since_seq: 0 }));
    other.ws.send(JSON.stringify({ type: 'subscribe_project', project_id: suite.projectId }));
    const refusals = [
      await other.inbox.next((m) => m.type === 'error' && /workflow/.test(m.error.message)),
      await other.inbox.next((m) => m.type === 'error' && /project/.test(m.error.message)),
    ];
    expect(refusals.map((r) => r.error.code)).toEqual(['not_found', 'not_found']);
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'running' } });
    await worker.store(id, seq.next++, { kind: 'title', data: { title: 'Secret plan' } });
    await worker.store(id, seq.next++, logEntry('secret output'));
    await own.inbox.next((m) => m.type === 'workflow_title');
    await Promise.all([roundTrip(own), roundTrip(other)]);
    expect(own.inbox.ofType('workflow_status')[0]).toMatchObject({
      workflow_id: id,
      project_id: suite.projectId,
      data: { status: 'running' },
    });
    expect(own.inbox.ofType('project_changed').some((m) => m.data.workflow_id === id)).toBe(true);
    // Project subscribers get status and title, not the workflow's log.
    expect(own.inbox.ofType('log_entry')).toHaveLength(0);
    const leaked = other.inbox.messages.filter(
      (m) => m.workflow_id === id || m.project_id === suite.projectId || JSON.stringify(m).includes('Secret'),
    );
    expect(leaked).toEqual([]);
    expect(other.ws.readyState).toBe(other.ws.OPEN);
    own.ws.close();
    other.ws.close();
  });

  it('ends the subscriptions of a member who is removed from the project', async () => {
    const { worker, id, seq } = await running('membership');
    const carol = await suite.server.login('carol');
    await addMember(suite.server, suite.alice, suite.projectId, 'carol');
    const { ws, inbox } = await openBrowser(suite.server, carol);
    ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id }));
    await inbox.next((m) => m.type === 'subscribed');
    const carolId = (await suite.server.deps.db.user.findUniqueOrThrow({ where: { login: 'carol' } })).id;
    expect(
      (
        await suite.server.request(`/svc/api/projects/${suite.projectId}/members/${carolId}`, {
          method: 'DELETE',
          as: suite.alice,
        })
      ).status,
    ).toBe(204);
    expect((await inbox.next((m) => m.type === 'error')).error.code).toBe('not_found');
    await worker.store(id, seq.next++, logEntry('after removal'));
    await roundTrip({ ws, inbox });
    expect(inbox.ofType('log_entry')).toHaveLength(0);
    ws.close();
  });

  it('drops a browser that stops reading instead of buffering without bound', async () => {
    const { worker, id, seq } = await running('firehose');
    const slow = await openBrowser(suite.server, suite.alice);
    const fast = await openBrowser(suite.server, suite.alice);
    for (const b of [slow, fast]) {
      b.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id }));
      await b.inbox.next((m) => m.type === 'subscribed');
    }
    const socket = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    socket.pause();
    // Watched, not replaced: the slow browser reads again as soon as the server has dropped it. A client
    // that stays silent for seconds after its drop is cut without a close frame (1006), so on a loaded
    // machine the rest of the 12 MiB going through the ingest must not come between the drop and the read.
    const drops = jest.spyOn(BrowserClient.prototype, 'drop');
    const big = 'x'.repeat(1024 * 1024);
    let stored = 0;
    try {
      while (stored < 12 && !drops.mock.calls.some(([code]) => code === WS_CLOSE_TOO_SLOW)) {
        await worker.store(id, seq.next++, logEntry(`${stored}:${big}`));
        stored++;
        await eventually(() => fast.inbox.ofType('log_entry').length === stored);
      }
    } finally {
      drops.mockRestore();
    }
    socket.resume();
    expect(stored).toBeLessThan(12);
    expect((await slow.inbox.whenClosed(45_000)).code).toBe(WS_CLOSE_TOO_SLOW);
    expect(slow.inbox.ofType('log_entry').length).toBeLessThan(stored);
    // the fast browser was never held back by the slow one
    await worker.store(id, seq.next++, logEntry('after the drop'));
    await eventually(() => fast.inbox.ofType('log_entry').length === stored + 1);
    fast.ws.close();
  }, 90_000);

  it('cuts a dropped browser that never reads again once its backlog stops shrinking', async () => {
    const { worker, id, seq } = await running('stalled');
    const before = suite.server.sockets.browsers.size;
    const stalled = await openBrowser(suite.server, suite.alice);
    stalled.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id }));
    await stalled.inbox.next((m) => m.type === 'subscribed');
    (stalled.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 12; i++) await worker.store(id, seq.next++, logEntry(`${i}:${big}`));
    // the server holds no socket for it any more: the watchdog terminated it
    await eventually(() => suite.server.sockets.browsers.size === before);
    stalled.ws.terminate();
  }, 90_000);
});
