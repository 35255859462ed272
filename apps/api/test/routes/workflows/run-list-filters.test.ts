import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { addMember, body, createProject, createWorkflow, dbState } from '../../support/fixtures';

type Item = {
  id: string;
  author: { kind: string; login: string | null };
  duration_ms: number | null;
  worker_name: string | null;
};
type Page = { items: Item[]; next_cursor: string | null; total: number; offset: number };

// Issue 29 (decision 0074): the run list's filters, counts and pages, and its refusal of bad filters.
describe.each(TEST_PROVIDERS)('run list filters on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let project: { id: string };
  const ids: Record<string, string> = {};
  const workers: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer(provider);
    ann = await server.login('ann');
    project = await createProject(server, ann, 'Filters');
    await addMember(server, ann, project.id, 'bob');
    const bob = await server.login('bob');
    const { db } = server.deps;
    for (const name of ['north', 'south']) workers[name] = (await db.worker.create({ data: { name, labels: [] } })).id;
    // a1..a5 by ann and b1, b2 by bob, one day apart (a1 oldest); a2, a3, a4 ran on north, b1 on south.
    const plan = ['a1', 'a2', 'a3', 'b1', 'a4', 'b2', 'a5'];
    for (const [day, key] of plan.entries()) {
      const w = await createWorkflow(server, key.startsWith('a') ? ann : bob, project.id, `Run ${key}`);
      ids[key] = w.id;
      await db.workflow.update({ where: { id: w.id }, data: { created_at: new Date(Date.UTC(2026, 0, 1 + day)) } });
    }
    const ran = (key: string, worker: string, finished: boolean) =>
      db.workflow.update({
        where: { id: ids[key] },
        data: {
          assigned_worker_id: finished ? null : workers[worker],
          // set with assigned_worker_id by the claim and kept once the run is released (decision 0078)
          last_worker_id: workers[worker],
          status: finished ? 'failed' : 'running',
          error: finished ? 'tests failed' : null,
          started_at: new Date(Date.UTC(2026, 0, 10, 0, 0, 0)),
          finished_at: finished ? new Date(Date.UTC(2026, 0, 10, 0, 0, 30)) : null,
        },
      });
    await ran('a2', 'north', false);
    await ran('a3', 'north', false);
    await ran('b1', 'south', false);
    await ran('a4', 'north', true); // finished: no longer assigned, still north's last run
    // b2 went back to the queue (its worker paused it): no worker holds it, south ran it last
    await db.workflow.update({ where: { id: ids.b2 }, data: { last_worker_id: workers.south } });
    await db.workflow.update({ where: { id: ids.a5 }, data: { schedule_id: 'some-schedule' } });
  });
  afterAll(async () => server?.close());

  const list = async (query: string) => {
    const res = await server.request(`/svc/api/projects/${project.id}/workflows?${query}`, { as: ann });
    expect(res.status).toBe(200);
    return body<Page>(res);
  };
  const keys = (page: Page) => page.items.map((item) => Object.keys(ids).find((key) => ids[key] === item.id));

  it('filters by status, author (id or login), worker and created-at range, with the count of each', async () => {
    expect(keys(await list('status=running'))).toEqual(['b1', 'a3', 'a2']);
    const byBob = await list('author=bob');
    expect(keys(byBob)).toEqual(['b2', 'b1']);
    expect(byBob.total).toBe(2);
    const bobId = (await server.deps.db.user.findFirstOrThrow({ where: { login: 'bob' } })).id;
    expect(keys(await list(`author=${bobId}`))).toEqual(['b2', 'b1']);
    // "Ran on": the runs north holds and the ones it finished (decision 0078)
    expect(keys(await list(`worker=${workers.north}`))).toEqual(['a4', 'a3', 'a2']);
    expect((await list(`worker=${workers.north}&status=failed`)).total).toBe(1);
    const range = await list('since=2026-01-02T00:00:00Z&until=2026-01-05T00:00:00Z');
    expect(keys(range)).toEqual(['b1', 'a3', 'a2']);
    expect(range.total).toBe(3);
    const combined = await list(`author=ann&worker=${workers.north}&since=2026-01-03T00:00:00Z&status=running`);
    expect(keys(combined)).toEqual(['a3']);
    expect((await list('author=nobody-here')).total).toBe(0);
    expect(keys(await list('q=run%20b&author=bob'))).toEqual(['b2', 'b1']);
  });

  it('says who started each run, how long it ran and on which worker, also one no worker holds now', async () => {
    const page = await list('limit=100');
    const item = (key: string) => page.items.find((i) => i.id === ids[key])!;
    expect(item('a1').author).toMatchObject({ kind: 'user', login: 'ann' });
    expect(item('b2').author).toMatchObject({ kind: 'user', login: 'bob' });
    expect(item('a5').author).toMatchObject({ kind: 'schedule', login: 'ann' });
    expect(item('a4')).toMatchObject({
      duration_ms: 30_000,
      worker_name: 'north',
      status: 'failed',
      error: 'tests failed',
    });
    // no worker holds a4 or b2 now: the name is the worker that last ran it (decision 0082); a1 never ran
    expect(item('b2')).toMatchObject({ status: 'pending', worker_name: 'south' });
    expect(item('a3').worker_name).toBe('north');
    expect(item('a1').worker_name).toBeNull();
    const one = await body<Item>(await server.request(`/svc/api/workflows/${ids.b2}`, { as: ann }));
    expect(one.worker_name).toBe('south');
    expect(item('a1').duration_ms).toBeNull();
    expect(item('a2').duration_ms).toBeNull(); // still running: the client times it from started_at
  });

  it('counts the matching runs and where each page starts, across cursors', async () => {
    const first = await list('limit=3');
    expect([first.total, first.offset, keys(first)]).toEqual([7, 0, ['a5', 'b2', 'a4']]);
    const second = await list(`limit=3&cursor=${first.next_cursor}`);
    expect([second.total, second.offset, keys(second)]).toEqual([7, 3, ['b1', 'a3', 'a2']]);
    const third = await list(`limit=3&cursor=${second.next_cursor}`);
    expect([third.total, third.offset, keys(third), third.next_cursor]).toEqual([7, 6, ['a1'], null]);
    const filtered = await list('author=ann&limit=2');
    const next = await list(`author=ann&limit=2&cursor=${filtered.next_cursor}`);
    expect([next.total, next.offset, keys(next)]).toEqual([5, 2, ['a3', 'a2']]);
  });

  it.each([
    'status=done',
    'since=yesterday',
    'until=2026-01-01',
    'since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z',
    'author=',
    'worker=',
    'limit=0',
  ])('refuses %s with the contract error body, changing nothing', async (query) => {
    const before = await dbState(server.deps.db);
    const res = await server.request(`/svc/api/projects/${project.id}/workflows?${query}`, { as: ann });
    expect(res.status).toBe(400);
    expect(await body(res)).toMatchObject({
      error: { code: 'invalid_input', message: expect.stringContaining('query') },
    });
    expect(await dbState(server.deps.db)).toEqual(before);
  });
});
