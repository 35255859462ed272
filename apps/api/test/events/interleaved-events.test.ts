import { logEntry, TestWorker, type Message } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { createWorkflow } from '../support/fixtures';
import { openBrowser, workflowEvents, workerSuite } from '../ws/clients';

/**
 * REST actions and worker updates append to one workflow's stream through the one event store: seqs
 * interleave without gaps or duplicates, and a live subscriber and a later replay see the same stream.
 */
describe.each(TEST_PROVIDERS)('one event stream for REST events and worker updates on %s', (provider) => {
  const suite = workerSuite(provider);

  const comparable = (events: Message[]) => events.map((e) => ({ seq: e.seq, type: e.type, data: e.data }));

  it('interleaves uploads and worker updates into one gap-free stream, live and replayed alike', async () => {
    const worker = await TestWorker.start(suite.server, suite.token, 'interleaver');
    suite.workers.push(worker);
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const { last_seq } = await worker.dispatch(id, 'start');
    const live = await openBrowser(suite.server, suite.alice);
    live.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id, since_seq: 0 }));
    await live.inbox.next((m) => m.type === 'subscribed');

    const updates = Array.from({ length: 30 }, (_, i) => last_seq + 1 + i);
    const uploads = Array.from({ length: 10 }, (_, i) => `notes/${i}.txt`);
    const acked = updates.map((seq) =>
      worker.inbox.next((m) => m.type === 'ack' && m.workflow_id === id && m.seq === seq),
    );
    const uploaded = uploads.map((path) =>
      suite.server.request(`/svc/api/workflows/${id}/files/${path}`, {
        method: 'PUT',
        as: suite.alice,
        headers: { 'content-type': 'text/plain' },
        body: `text of ${path}`,
      }),
    );
    // Updates go out one by one while the uploads are in flight, so both writers contend for the counter.
    for (const seq of updates) worker.update(id, seq, logEntry(`line ${seq}`));
    await Promise.all(acked);
    expect((await Promise.all(uploaded)).map((res) => res.status)).toEqual(uploads.map(() => 201));

    const { last_event_seq } = await suite.server.deps.db.workflow.findUniqueOrThrow({ where: { id } });
    // The `created` action, then each log entry as `workflow_update` + `log_entry`, each upload as `file_changed`.
    expect(last_event_seq).toBe(1 + updates.length * 2 + uploads.length);
    await live.inbox.next((m) => m.workflow_id === id && m.seq === last_event_seq);

    const liveStream = workflowEvents(live.inbox, id);
    expect(liveStream.map((e) => e.seq)).toEqual(Array.from({ length: last_event_seq }, (_, i) => i + 1));
    expect(
      liveStream
        .filter((e) => e.type === 'file_changed')
        .map((e) => e.data.path)
        .sort(),
    ).toEqual([...uploads].sort());
    expect(liveStream.filter((e) => e.type === 'log_entry').map((e) => e.data.output)).toEqual(
      updates.map((seq) => `line ${seq}`),
    );

    const replay = await openBrowser(suite.server, suite.alice);
    replay.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id, since_seq: 0 }));
    const subscribed = await replay.inbox.next((m) => m.type === 'subscribed');
    expect(subscribed.last_seq).toBe(last_event_seq);
    expect(comparable(workflowEvents(replay.inbox, id))).toEqual(comparable(liveStream));
    live.ws.close();
    replay.ws.close();
  });
});
