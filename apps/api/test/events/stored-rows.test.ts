import { snapshot, TestWorker, type Message } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { body, createWorkflow } from '../support/fixtures';
import { openBrowser, workflowEvents, workerSuite } from '../ws/clients';

/**
 * A log entry update's `workflow_update` and `log_entry` events are stored as one row (issue 11: the
 * second repeated the first). The stream is unchanged: every seq, live and replayed alike, from any
 * `since_seq`, and the rebuilt `log_entry` is the one the log API serves.
 */
describe.each(TEST_PROVIDERS)('log entry events stored as one row on %s', (provider) => {
  const suite = workerSuite(provider);

  it('replays the same stream from every since_seq, in pages of any size', async () => {
    const worker = await TestWorker.start(suite.server, suite.token, 'one-row');
    suite.workers.push(worker);
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const { last_seq } = await worker.dispatch(id, 'start');
    const live = await openBrowser(suite.server, suite.alice);
    live.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id, since_seq: 0 }));
    await live.inbox.next((m) => m.type === 'subscribed');

    let seq = last_seq;
    const entry = (output: string, extra: object = {}) => ({
      kind: 'log_entry' as const,
      data: {
        step_index: null,
        tool_name: 'write_file',
        // keys in the order PostgreSQL's jsonb keeps them (shorter first), so the YAML reads alike
        tool_input: { a: 1, cwd: '/w', path: 'src/app.ts', content: 'line 1\nline 2\n' },
        output,
        is_error: false,
        ...extra,
      },
    });
    await worker.store(id, ++seq, entry('first', { duration_ms: 12, step_index: 0 }));
    await worker.store(id, ++seq, snapshot('executing', 0, ['running']));
    await worker.store(id, ++seq, entry('second', { is_error: true }));
    await worker.store(id, ++seq, entry('third'));
    const { last_event_seq } = await suite.server.deps.db.workflow.findUniqueOrThrow({ where: { id } });
    await live.inbox.next((m) => m.workflow_id === id && m.seq === last_event_seq);
    const stream = workflowEvents(live.inbox, id);
    expect(stream.map((e) => e.seq)).toEqual(Array.from({ length: last_event_seq }, (_, i) => i + 1));

    // Three log entries: three rows fewer than events.
    expect(stream.filter((e) => e.type === 'log_entry')).toHaveLength(3);
    expect(await suite.server.deps.db.event.count({ where: { workflow_id: id } })).toBe(last_event_seq - 3);

    // What the log API serves is what the rebuilt events carry.
    const log = await body<{ items: unknown[] }>(
      await suite.server.request(`/svc/api/workflows/${id}/log`, { as: suite.alice }),
    );
    const comparable = (events: Message[]) => events.map(({ seq: s, type, ts, data }) => ({ seq: s, type, ts, data }));

    const ref = { id, project_id: suite.projectId };
    for (let since = 0; since <= last_event_seq; since++) {
      for (const limit of [1, 2, 1000]) {
        const pages: Message[] = [];
        for (let after = since; ; ) {
          const page = await suite.server.deps.events.since(ref, after, limit);
          pages.push(...(page as Message[]));
          if (page.length < limit) break;
          after = page.at(-1)!.seq;
        }
        expect(comparable(pages)).toEqual(comparable(stream.slice(since)));
      }
    }
    const replayed = (await suite.server.deps.events.since(ref, 0)).filter((e) => e.type === 'log_entry');
    expect(replayed.map((e) => e.data)).toEqual(log.items);

    // A page that reconnects between a log entry's two events gets the second one, once.
    const between = stream.find((e) => e.type === 'log_entry')!.seq - 1;
    const replay = await openBrowser(suite.server, suite.alice);
    replay.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id, since_seq: between }));
    const subscribed = await replay.inbox.next((m) => m.type === 'subscribed');
    expect(subscribed.last_seq).toBe(last_event_seq);
    await replay.inbox.next((m) => m.workflow_id === id && m.seq === last_event_seq);
    expect(comparable(workflowEvents(replay.inbox, id))).toEqual(comparable(stream.slice(between)));
    live.ws.close();
    replay.ws.close();
  });
});
