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

  beforeAll(async () => {
    server = await startTestServer(provider, { OUTBOX_POLL_MS: '50', OUTBOX_RETRY_BASE_MS: '10' });
    server.runtime.live.outbox.register('test', async (event) => {
      attemptsOf.set(event.id, (attemptsOf.get(event.id) ?? 0) + 1);
      if (failNext > 0) {
        failNext--;
        throw new Error('failing on purpose');
      }
      seen.push(event);
    });
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
  });
});
