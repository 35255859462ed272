import { eventually, logEntry, type Inbox } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { storedStream } from '../support/events';
import { createWorkflow } from '../support/fixtures';
import { WS_CLOSE_SESSION_REVOKED } from '../../src/ws/browser-client';
import { openBrowser, workflowEvents, workerSuite } from './clients';

/** Sockets of one session: the hub answers their credential questions once for all of them. */
const SOCKETS = 12;

describe.each(TEST_PROVIDERS)('fan-out to many sockets of one session on %s', (provider) => {
  const suite = workerSuite(provider);

  /** A request answered after every message sent before it on that socket was handled (an error). */
  async function roundTrip(client: { ws: { send(text: string): void }; inbox: Inbox }): Promise<void> {
    const before = client.inbox.messages.length;
    client.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: 'no-such-workflow' }));
    await client.inbox.next((m) => m.type === 'error' && client.inbox.messages.indexOf(m) >= before);
  }

  it('delivers every event in order to each subscriber, and an unsubscribe frees the subscription', async () => {
    const worker = await suite.start('fan-out');
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const { last_seq } = await worker.dispatch(id, 'start');
    const hub = suite.server.sockets.browsers;
    const browsers = await Promise.all(Array.from({ length: SOCKETS }, () => openBrowser(suite.server, suite.alice)));
    for (const { ws } of browsers) ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id }));
    const subscribed = await Promise.all(browsers.map(({ inbox }) => inbox.next((m) => m.type === 'subscribed')));
    expect(hub.subscriberCount(id)).toBe(SOCKETS);

    const burst = Array.from({ length: 25 }, (_, i) => last_seq + 1 + i);
    for (const seq of burst) worker.update(id, seq, logEntry(`line ${seq}`));
    await worker.inbox.next((m) => m.type === 'ack' && m.seq === burst[burst.length - 1]);
    const stored = await storedStream(suite.server.deps.db, suite.server.deps.dbProvider, id);
    for (const [i, { inbox }] of browsers.entries()) {
      const expected = stored.filter((e) => e.seq > subscribed[i]!.last_seq);
      await eventually(() => workflowEvents(inbox, id).length >= expected.length);
      const received = workflowEvents(inbox, id);
      expect(received.map((e) => e.seq)).toEqual(expected.map((e) => e.seq));
      expect(received.map((e) => e.type)).toEqual(expected.map((e) => e.type));
    }

    const last = burst[burst.length - 1]!;
    const [leaving, ...staying] = browsers as [(typeof browsers)[number], ...typeof browsers];
    leaving.ws.send(JSON.stringify({ type: 'unsubscribe', workflow_id: id }));
    await roundTrip(leaving);
    expect(hub.subscriberCount(id)).toBe(SOCKETS - 1);
    const heard = browsers.map(({ inbox }) => workflowEvents(inbox, id).length);
    await worker.store(id, last + 1, logEntry('after the unsubscribe'));
    for (const [i, { inbox }] of staying.entries())
      await eventually(() => workflowEvents(inbox, id).length > heard[i + 1]!);
    await roundTrip(leaving);
    expect(workflowEvents(leaving.inbox, id)).toHaveLength(heard[0]!);

    // A closed socket's subscriptions go with it.
    for (const { ws } of browsers) ws.close();
    await eventually(() => hub.subscriberCount(id) === 0, { what: 'the closed sockets to be unsubscribed' });
  });

  it('a deleted user is refused at the upgrade and cut on re-validation, for every socket of the session', async () => {
    const cookie = await suite.server.login('shared-session');
    const browsers = await Promise.all(Array.from({ length: SOCKETS }, () => openBrowser(suite.server, cookie)));
    const user = await suite.server.deps.db.user.findUniqueOrThrow({ where: { login: 'shared-session' } });
    await suite.server.deps.db.user.delete({ where: { id: user.id } });
    await suite.server.sockets.browsers.revalidate();
    for (const { inbox } of browsers) expect((await inbox.whenClosed()).code).toBe(WS_CLOSE_SESSION_REVOKED);
    await expect(openBrowser(suite.server, cookie)).rejects.toMatchObject({ status: 401 });
  });
});
