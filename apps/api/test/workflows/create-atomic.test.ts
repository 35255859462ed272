import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, captureEvents, createProject, recordingSteering, type RecordingSteering } from '../support/fixtures';
import { allowEventInserts, failEventInserts } from '../support/event-triggers';

/**
 * A workflow and its `created` event commit together (issue 22): when the event cannot be stored, the
 * create fails and leaves no workflow, no workspace, no notice and no dispatch; the same request with
 * its idempotency key then creates it once.
 */
describe.each(TEST_PROVIDERS)('creating a workflow on %s', (provider) => {
  let server: TestServer;
  let steering: RecordingSteering;
  let ann: string;
  beforeAll(async () => {
    steering = recordingSteering();
    server = await startTestServer(provider, {}, { steering });
    ann = await server.login('ann');
  });
  afterAll(async () => server?.close());

  const create = (projectId: string) =>
    server.request(`/svc/api/projects/${projectId}/workflows`, {
      method: 'POST',
      as: ann,
      json: { requirement: 'Build it' },
      headers: { 'Idempotency-Key': 'atomic-1' },
    });

  it('stores nothing when its created event fails, and creates it once when asked again', async () => {
    const project = await createProject(server, ann, 'Atomic');
    const { db } = server.deps;
    const published = captureEvents(server);
    steering.reset();
    await failEventInserts(db, provider, 'workflow_action');
    let refused: Response;
    try {
      refused = await create(project.id);
    } finally {
      await allowEventInserts(db, provider);
    }
    expect(refused.status).toBeGreaterThanOrEqual(500);
    expect((await body(refused)).error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expect(await db.workflow.count({ where: { project_id: project.id } })).toBe(0);
    expect(existsSync(join(server.dataDir, 'workspaces', project.id))).toBe(false);
    expect(steering.calls).toEqual([]);
    expect(published.events).toEqual([]);

    const created = await create(project.id);
    expect(created.status).toBe(201);
    const workflow = await body(created);
    // PostgreSQL numbered the failed create before its transaction (decision 0088): its number is spent.
    expect(workflow.number).toBe(provider === 'postgresql' ? 2 : 1);
    const events = await db.event.findMany({ where: { workflow_id: workflow.id }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => [e.seq, e.type, (e.data as { action?: string }).action])).toEqual([
      [1, 'workflow_action', 'created'],
    ]);
    // Published after the commit: the event, then the project lists' notice.
    expect(published.events.map((e) => [e.type, e.workflow_id ?? e.data])).toEqual([
      ['workflow_action', workflow.id],
      ['project_changed', { change: 'workflow_created', workflow_id: workflow.id }],
    ]);
    expect((await create(project.id)).status).toBe(200);
    published.stop();
  });
});
