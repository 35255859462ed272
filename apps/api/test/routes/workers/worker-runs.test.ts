import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { body, createProject } from '../../support/fixtures';

interface ListedWorker {
  name: string;
  active: number;
  current_runs: { workflow_id: string; project_id: string; number: number; title: string; status: string }[];
}

describe.each(TEST_PROVIDERS)('the runs GET /workers shows each worker holding on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let bob: string;
  let root: string;
  let annsRun: string;
  let bobsRun: string;
  let annsProject: string;
  beforeAll(async () => {
    server = await startTestServer(provider);
    [ann, bob, root] = await Promise.all([server.login('ann'), server.login('bob'), server.login('root')]);
    const { db } = server.deps;
    const worker = await db.worker.create({
      data: { name: 'box-1', labels: ['linux'], capacity: 3, status: 'online' },
    });
    await db.worker.create({ data: { name: 'box-2', labels: [], capacity: 1 } });
    annsProject = (await createProject(server, ann, 'Ann’s')).id;
    const bobsProject = (await createProject(server, bob, 'Bob’s')).id;
    const run = (projectId: string, number: number, title: string, status: string) =>
      db.workflow.create({
        data: {
          project_id: projectId,
          created_by: 'x',
          requirement: title,
          title,
          status,
          number,
          assigned_worker_id: worker.id,
        },
      });
    annsRun = (await run(annsProject, 1, 'Build the shop', 'running')).id;
    bobsRun = (await run(bobsProject, 1, 'Bob’s secret', 'waiting_user')).id;
    await run(annsProject, 2, 'Finished', 'completed');
    const deleted = await run(annsProject, 3, 'Deleted', 'running');
    await db.workflow.update({ where: { id: deleted.id }, data: { deleted_at: new Date() } });
  });
  afterAll(async () => server?.close());

  const workers = async (as: string) => {
    const res = await server.request('/svc/api/workers', { as });
    expect(res.status).toBe(200);
    return body<ListedWorker[]>(res);
  };

  it('shows a member only the unfinished runs of projects they belong to', async () => {
    const [one, two] = await workers(ann);
    expect(one).toMatchObject({ name: 'box-1', active: 2 });
    expect(one!.current_runs).toEqual([
      { workflow_id: annsRun, project_id: annsProject, number: 1, title: 'Build the shop', status: 'running' },
    ]);
    expect(two).toMatchObject({ name: 'box-2', current_runs: [] });
    expect((await workers(bob))[0]!.current_runs.map((r) => r.workflow_id)).toEqual([bobsRun]);
  });

  it('shows an administrator every run, and a project-narrowed token only its project’s', async () => {
    expect((await workers(root))[0]!.current_runs.map((r) => r.workflow_id)).toEqual([annsRun, bobsRun]);
    const minted = await server.request('/svc/api/token', {
      method: 'POST',
      as: root,
      json: { project_id: annsProject },
    });
    expect(minted.status).toBe(201);
    const narrowed = (await body<{ token: string }>(minted)).token;
    expect((await workers(narrowed))[0]!.current_runs.map((r) => r.workflow_id)).toEqual([annsRun]);
  });

  it('shows nobody’s runs to a user outside every project', async () => {
    const carl = await server.login('carl');
    expect((await workers(carl)).map((w) => w.current_runs)).toEqual([[], []]);
  });
});
