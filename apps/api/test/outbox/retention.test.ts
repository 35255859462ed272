import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { createProject } from '../support/fixtures';

const DAY = 24 * 60 * 60_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

/**
 * The delivery logs' retention (decision 0048): the forge sweep deletes delivered outbox claims (and
 * events with no claim left), ended webhook deliveries with their attempts, and forge deliveries older
 * than WEBHOOK_LOG_RETENTION_DAYS; anything still pending or dead stays. Rows are back-dated through
 * the database.
 */
describe.each(TEST_PROVIDERS)('delivery log retention on %s', (provider) => {
  let server: TestServer;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer(provider, {
      WEBHOOK_LOG_RETENTION_DAYS: '10',
      // The sweep's own timer stays out of the way: the test runs the sweep itself.
      FORGE_SWEEP_SECONDS: '3600',
    });
    const alice = await server.login('alice');
    projectId = (await createProject(server, alice)).id;
  });
  afterAll(async () => server?.close());

  it('the sweep deletes what ended before the retention and keeps the rest', async () => {
    const { db } = server.deps;
    const consumer = 'retention-test'; // not registered: no dispatcher touches these claims
    const event = (id: string, at: Date) =>
      db.outboxEvent.create({
        data: { id, type: 'run.created', project_id: projectId, workflow_id: 'w', data: '{}', created_at: at },
      });
    const claim = (eventId: string, state: string, at: Date, who = consumer) =>
      db.outboxClaim.create({
        data: { consumer: who, event_id: eventId, state, available_at: at, created_at: at, updated_at: at },
      });
    await event('ev-old-done', daysAgo(11));
    await claim('ev-old-done', 'done', daysAgo(11));
    await event('ev-old-mixed', daysAgo(11));
    await claim('ev-old-mixed', 'done', daysAgo(11));
    await claim('ev-old-mixed', 'dead', daysAgo(11), 'retention-other');
    await event('ev-old-pending', daysAgo(12));
    await claim('ev-old-pending', 'pending', daysAgo(12));
    await event('ev-recent', daysAgo(9));
    await claim('ev-recent', 'done', daysAgo(9));

    const hook = await db.webhook.create({
      data: { project_id: projectId, url: 'https://hooks.example.com/x', events: '[]', created_by: 'alice' },
    });
    const delivery = async (key: string, state: string, at: Date) => {
      const row = await db.webhookDelivery.create({
        data: {
          webhook_id: hook.id,
          event_id: key,
          event_type: 'run.created',
          payload: '{}',
          state,
          // far ahead: the delivery worker leaves a pending one alone
          next_attempt_at: new Date(Date.now() + 365 * DAY),
          expires_at: new Date(Date.now() + 365 * DAY),
          created_at: at,
          updated_at: at,
        },
      });
      await db.webhookAttempt.create({ data: { delivery_id: row.id, attempt: 1, duration_ms: 5, at } });
      return row.id;
    };
    const oldDelivered = await delivery('d-old-delivered', 'delivered', daysAgo(11));
    const oldFailed = await delivery('d-old-failed', 'failed', daysAgo(30));
    const oldPending = await delivery('d-old-pending', 'pending', daysAgo(11));
    const recent = await delivery('d-recent', 'delivered', daysAgo(9));

    const forge = (key: string, at: Date) =>
      db.forgeDelivery.create({
        data: {
          repository_id: 'r',
          delivery_id: key,
          event: 'issues',
          outcome: 'ignored',
          payload_sha256: '0'.repeat(64),
          received_at: at,
        },
      });
    await forge('f-old', daysAgo(11));
    await forge('f-recent', daysAgo(9));

    await server.deps.forgeSync!.sweep();

    expect(
      (await db.outboxClaim.findMany({ orderBy: [{ event_id: 'asc' }, { consumer: 'asc' }] })).map((c) => [
        c.event_id,
        c.state,
      ]),
    ).toEqual([
      ['ev-old-mixed', 'dead'],
      ['ev-old-pending', 'pending'],
      ['ev-recent', 'done'],
    ]);
    expect((await db.outboxEvent.findMany({ orderBy: { id: 'asc' } })).map((e) => e.id)).toEqual([
      'ev-old-mixed',
      'ev-old-pending',
      'ev-recent',
    ]);
    expect((await db.webhookDelivery.findMany({ where: { webhook_id: hook.id } })).map((d) => d.id).sort()).toEqual(
      [oldPending, recent].sort(),
    );
    expect((await db.webhookAttempt.findMany()).map((a) => a.delivery_id).sort()).toEqual([oldPending, recent].sort());
    expect(await db.webhookAttempt.count({ where: { delivery_id: { in: [oldDelivered, oldFailed] } } })).toBe(0);
    expect((await db.forgeDelivery.findMany()).map((f) => f.delivery_id)).toEqual(['f-recent']);

    // Once per interval on a replica: the next sweep soon after leaves a newly old row for the next prune.
    await forge('f-old-2', daysAgo(11));
    await server.deps.forgeSync!.sweep();
    expect((await db.forgeDelivery.findMany({ orderBy: { delivery_id: 'asc' } })).map((f) => f.delivery_id)).toEqual([
      'f-old-2',
      'f-recent',
    ]);
  });
});
