import { eventually } from '@svc/test-kit';
import type { WorkerRunPage } from '@svc/protocol';
import { TEST_PROVIDERS } from '../../support/server';
import { body, createProject } from '../../support/fixtures';
import { workerSuite } from '../../ws/clients';

/** `GET /workers/{id}/runs` (issue 29, decision 0078): the runs a worker last took, held or finished. */
describe.each(TEST_PROVIDERS)('a worker’s runs on %s', (provider) => {
  const suite = workerSuite(provider);
  const runs = (workerId: string, as: string, query = '') =>
    suite.server.request(`/svc/api/workers/${workerId}/runs${query}`, { as });
  const page = async (workerId: string, as: string, query = '') => {
    const res = await runs(workerId, as, query);
    expect(res.status).toBe(200);
    return body<WorkerRunPage>(res);
  };

  it('lists a run the worker took and finished, to its project’s members and administrators only', async () => {
    const worker = await suite.start('runs-box');
    const created = await suite.server.request(`/svc/api/projects/${suite.projectId}/workflows`, {
      method: 'POST',
      as: suite.alice,
      json: { requirement: 'Build the shop.' },
    });
    const { id } = await body<{ id: string }>(created);
    const dispatch = await worker.dispatch(id, 'start');
    await worker.store(id, dispatch.last_seq + 1, { kind: 'status', data: { status: 'completed' } });
    const { db } = suite.server.deps;
    await eventually(async () => (await db.workflow.findUniqueOrThrow({ where: { id } })).status === 'completed', {
      what: 'the run to finish',
    });
    // The claim named the worker as the run's last one; nothing clears that (decision 0078).
    expect((await db.workflow.findUniqueOrThrow({ where: { id } })).last_worker_id).toBe(worker.id);

    const mine = await page(worker.id!, suite.alice);
    expect(mine.next_cursor).toBeNull();
    expect(mine.items).toEqual([
      {
        workflow_id: id,
        project_id: suite.projectId,
        project_name: expect.any(String),
        number: 1,
        title: expect.any(String),
        status: 'completed',
        started_at: expect.any(String),
        finished_at: expect.any(String),
        duration_ms: expect.any(Number),
        error: null,
      },
    ]);
    const bob = await suite.server.login('bob');
    expect((await page(worker.id!, bob)).items).toEqual([]);
    const root = await suite.server.login('root');
    expect((await page(worker.id!, root)).items.map((r) => r.workflow_id)).toEqual([id]);
  });

  it('pages newest first and answers 404 for an unknown worker and 400 for a bad limit or cursor', async () => {
    const { db } = suite.server.deps;
    const worker = await db.worker.create({ data: { name: 'paged-box', labels: [] } });
    const other = await db.worker.create({ data: { name: 'other-box', labels: [] } });
    const project = await createProject(suite.server, suite.alice, 'Paged');
    const ids: string[] = [];
    for (let day = 1; day <= 5; day++) {
      const run = await db.workflow.create({
        data: {
          project_id: project.id,
          created_by: 'x',
          requirement: `Run ${day}`,
          title: `Run ${day}`,
          number: day,
          status: day === 5 ? 'running' : 'failed',
          error: day === 5 ? null : 'tests failed',
          assigned_worker_id: day === 5 ? worker.id : null,
          last_worker_id: day === 3 ? other.id : worker.id,
          created_at: new Date(Date.UTC(2026, 0, day)),
          started_at: new Date(Date.UTC(2026, 0, day, 1)),
          finished_at: day === 5 ? null : new Date(Date.UTC(2026, 0, day, 1, 0, 30)),
        },
      });
      ids[day] = run.id;
    }
    const first = await page(worker.id, suite.alice, '?limit=2');
    expect(first.items.map((r) => r.workflow_id)).toEqual([ids[5], ids[4]]);
    expect(first.items[0]).toMatchObject({ status: 'running', duration_ms: null, finished_at: null });
    expect(first.items[1]).toMatchObject({ status: 'failed', duration_ms: 30_000, error: 'tests failed' });
    const second = await page(worker.id, suite.alice, `?limit=2&cursor=${first.next_cursor}`);
    expect(second.items.map((r) => r.workflow_id)).toEqual([ids[2], ids[1]]);
    expect(second.next_cursor).toBeNull();

    expect((await runs('no-such-worker', suite.alice)).status).toBe(404);
    for (const query of ['?limit=0', '?limit=abc', '?limit=1001', '?cursor=not*a*cursor', '?cursor=WzFd']) {
      const res = await runs(worker.id, suite.alice, query);
      expect([query, res.status]).toEqual([query, 400]);
      expect(await body(res)).toMatchObject({ error: { code: 'invalid_input' } });
    }
  });
});
