import { eventually } from '@svc/test-kit';
import type { OutboxEvent } from '../../src/outbox';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { createProject, createWorkflow } from '../support/fixtures';

describe.each(TEST_PROVIDERS)('the outbox on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  let projectId: string;
  const seen: OutboxEvent[] = [];
  let failNext = 0;
  const attemptsOf = new Map<string, number>();
  const ends: OutboxEvent[] = [];
  /** while set, the `test` consumer waits on it (events pile up behind the one it holds) */
  let gate: Promise<void> | undefined;

  beforeAll(async () => {
    server = await startTestServer(provider, { OUTBOX_POLL_MS: '50', OUTBOX_RETRY_BASE_MS: '10' });
    server.runtime.live.outbox.register('test', async (event) => {
      attemptsOf.set(event.id, (attemptsOf.get(event.id) ?? 0) + 1);
      await gate;
      if (failNext > 0) {
        failNext--;
        throw new Error('failing on purpose');
      }
      seen.push(event);
    });
    server.runtime.live.outbox.register('ends', async (event) => void ends.push(event), ['run.cancelled']);
    alice = await server.login('alice');
    projectId = (await createProject(server, alice)).id;
  });
  afterAll(async () => server?.close());

  it('writes run.created with the run, hands it to a consumer once, and retries a failed consumer', async () => {
    failNext = 2;
    const run = await createWorkflow(server, alice, projectId, 'Write the outbox');
    const created = await eventually(
      () => seen.find((e) => e.workflow_id === run.id && e.type === 'run.created') ?? false,
    );
    expect(created).toMatchObject({ project_id: projectId, data: { title: expect.any(String), number: 1 } });
    expect(created.data.run_url).toBe(`${server.url}/projects/${projectId}/workflows/${run.id}`);
    expect(attemptsOf.get(created.id)).toBe(3);
    const claim = await eventually(async () => {
      const row = await server.deps.db.outboxClaim.findUnique({
        where: { consumer_event_id: { consumer: 'test', event_id: created.id } },
      });
      return row?.state === 'done' && row;
    });
    expect(claim).toMatchObject({ attempts: 3, locked_by: null });
    // The event row and the workflow row committed together.
    const rows = await server.deps.db.outboxEvent.findMany({ where: { workflow_id: run.id } });
    expect(rows.map((r) => r.type)).toEqual(['run.created']);
  });

  it('maps a cancel to run.cancelled', async () => {
    const run = await createWorkflow(server, alice, projectId, 'Cancel me');
    const res = await server.request(`/svc/api/workflows/${run.id}/cancel`, { method: 'POST', as: alice });
    expect(res.status).toBeLessThan(300);
    const cancelled = await eventually(
      () => seen.find((e) => e.workflow_id === run.id && e.type === 'run.cancelled') ?? false,
    );
    expect(cancelled.data.status).toBe('cancelled');
    // A consumer gets claims for the types it registered for only; the notifier is not told of a creation.
    const ended = await eventually(() => ends.find((e) => e.workflow_id === run.id) ?? false);
    expect(ended.id).toBe(cancelled.id);
    const events = await server.deps.db.outboxEvent.findMany({ where: { workflow_id: run.id } });
    const claims = await server.deps.db.outboxClaim.findMany({ where: { event_id: { in: events.map((e) => e.id) } } });
    const consumersOf = (type: string) =>
      claims
        .filter((c) => c.event_id === events.find((e) => e.type === type)!.id)
        .map((c) => c.consumer)
        .sort();
    expect(consumersOf('run.created')).toEqual(['test', 'webhooks']);
    expect(consumersOf('run.cancelled')).toEqual(['ends', 'test', 'webhooks']);
    expect(ends.filter((e) => e.workflow_id === run.id)).toHaveLength(1);
  });

  it('hands a burst of events out in batches, each once, in the order they were written', async () => {
    const before = seen.length;
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const first = await createWorkflow(server, alice, projectId, 'Burst 0');
    // The consumer holds the first event while 44 more are written: they are due together.
    await eventually(async () => {
      const event = await server.deps.db.outboxEvent.findFirst({ where: { workflow_id: first.id } });
      return event !== null && attemptsOf.has(event.id);
    });
    const runs = [first];
    for (let i = 1; i < 45; i++) runs.push(await createWorkflow(server, alice, projectId, `Burst ${i}`));
    gate = undefined;
    open();
    const ids = runs.map((run) => run.id);
    const created = await eventually(() => {
      const mine = seen.slice(before).filter((e) => e.type === 'run.created' && ids.includes(e.workflow_id));
      return mine.length >= ids.length && mine;
    });
    expect(created.map((e) => e.workflow_id)).toEqual(ids);
    const claims = await eventually(async () => {
      const rows = await server.deps.db.outboxClaim.findMany({
        where: { consumer: 'test', event_id: { in: created.map((e) => e.id) } },
      });
      return rows.every((row) => row.state === 'done') && rows;
    });
    expect(claims.map((c) => c.attempts)).toEqual(ids.map(() => 1));
  });
});
