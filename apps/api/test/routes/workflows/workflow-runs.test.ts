import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import {
  addMember,
  body,
  createProject,
  createWorkflow,
  dbState,
  recordingSteering,
  storeSnapshot,
} from '../../support/fixtures';

// Issue 14: run numbers, idempotent creates, re-runs, the run list's filters and progress, /me/waiting.
describe.each(TEST_PROVIDERS)('workflow runs on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  beforeAll(async () => {
    server = await startTestServer(provider, {}, { steering: recordingSteering() });
    ann = await server.login('ann');
  });
  afterAll(async () => server?.close());

  const create = (projectId: string, json: unknown, headers: Record<string, string> = {}, as = ann) =>
    server.request(`/svc/api/projects/${projectId}/workflows`, { method: 'POST', as, json, headers });
  const list = async (projectId: string, query = '', as = ann) =>
    server.request(`/svc/api/projects/${projectId}/workflows${query}`, { as });
  const setStatus = (id: string, status: string, question: string | null = null) =>
    server.deps.db.workflow.update({ where: { id }, data: { status, question } });

  it('numbers runs 1, 2, 3 within each project', async () => {
    const shop = await createProject(server, ann, 'Numbers A');
    const blog = await createProject(server, ann, 'Numbers B');
    const numbers = [];
    for (const project of [shop, shop, blog, shop]) {
      const res = await create(project.id, { requirement: 'Build it' });
      expect(res.status).toBe(201);
      numbers.push((await body(res)).number);
    }
    expect(numbers).toEqual([1, 2, 1, 3]);
  });

  it('gives simultaneous creates distinct consecutive numbers', async () => {
    const project = await createProject(server, ann, 'Concurrent');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create(project.id, { requirement: `Run ${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const numbers = (await Promise.all(results.map((r) => body(r)))).map((w) => w.number);
    expect([...numbers].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('returns the first workflow for a repeated Idempotency-Key (200), in that project only', async () => {
    const project = await createProject(server, ann, 'Idempotent');
    const other = await createProject(server, ann, 'Idempotent too');
    const key = { 'Idempotency-Key': 'form-1' };
    const first = await create(project.id, { requirement: 'Once' }, key);
    expect(first.status).toBe(201);
    const made = await body(first);
    const again = await create(project.id, { requirement: 'Once' }, key);
    expect(again.status).toBe(200);
    expect(await body(again)).toEqual(made);
    expect(await server.deps.db.workflow.count({ where: { project_id: project.id } })).toBe(1);
    // The same key in another project is another request.
    const elsewhere = await create(other.id, { requirement: 'Once' }, key);
    expect(elsewhere.status).toBe(201);
    expect((await body(elsewhere)).id).not.toBe(made.id);
  });

  it('resolves simultaneous requests with one Idempotency-Key to one workflow', async () => {
    const project = await createProject(server, ann, 'Double click');
    const results = await Promise.all(
      Array.from({ length: 6 }, () => create(project.id, { requirement: 'Double' }, { 'Idempotency-Key': 'dbl' })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 201]);
    const ids = new Set((await Promise.all(results.map((r) => body(r)))).map((w) => w.id));
    expect(ids.size).toBe(1);
    expect(await server.deps.db.workflow.count({ where: { project_id: project.id } })).toBe(1);
    // One `created` action, not six.
    const [id] = [...ids];
    expect(await server.deps.db.event.count({ where: { workflow_id: id!, type: 'workflow_action' } })).toBe(1);
  });

  it.each([
    ['too long', 'k'.repeat(201)],
    ['empty', ''],
  ])('refuses an Idempotency-Key that is %s and creates nothing', async (_name, value) => {
    const project = await createProject(server, ann, `Bad key ${value.length}`);
    const before = await dbState(server.deps.db);
    const res = await create(project.id, { requirement: 'x' }, { 'Idempotency-Key': value });
    expect(res.status).toBe(400);
    expect((await body(res)).error).toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('Idempotency-Key'),
    });
    expect(await dbState(server.deps.db)).toEqual(before);
  });

  it('records what a run re-runs, only within the same project', async () => {
    const project = await createProject(server, ann, 'Reruns');
    const original = await createWorkflow(server, ann, project.id, 'Build a shop');
    const res = await create(project.id, { requirement: 'Build a shop, blue', rerun_of: original.id });
    expect(res.status).toBe(201);
    expect(await body(res)).toMatchObject({ rerun_of: original.id, number: 2, requirement: 'Build a shop, blue' });

    // Another project's workflow (even one the caller can see there), a made-up id, a deleted one: 400.
    const otherProject = await createProject(server, ann, 'Elsewhere');
    const foreign = await createWorkflow(server, ann, otherProject.id);
    const mallory = await server.login('mallory');
    const hidden = await createWorkflow(server, mallory, (await createProject(server, mallory, 'Secret')).id);
    const gone = await createWorkflow(server, ann, project.id);
    expect((await server.request(`/svc/api/workflows/${gone.id}`, { method: 'DELETE', as: ann })).status).toBe(204);
    for (const rerun_of of [foreign.id, hidden.id, 'no-such-workflow', gone.id]) {
      const before = await dbState(server.deps.db);
      const refused = await create(project.id, { requirement: 'again', rerun_of });
      expect(refused.status).toBe(400);
      expect((await body(refused)).error).toMatchObject({
        code: 'invalid_input',
        message: expect.stringContaining('rerun_of'),
      });
      expect(await dbState(server.deps.db)).toEqual(before);
    }
  });

  it('filters the list by status and by text in title or requirement, case-insensitively', async () => {
    const project = await createProject(server, ann, 'Filters');
    const shop = await createWorkflow(server, ann, project.id, 'Build a SHOP\nwith a cart');
    const blog = await createWorkflow(server, ann, project.id, 'Write a blog');
    const notes = await createWorkflow(server, ann, project.id, 'Notes app\nsynced like the shop');
    await setStatus(shop.id, 'running');
    await setStatus(blog.id, 'waiting_user', 'Which theme?');
    await server.deps.db.workflow.update({ where: { id: blog.id }, data: { title: 'Shopping list blog' } });
    const ids = async (query: string) => {
      const res = await list(project.id, query);
      expect(res.status).toBe(200);
      return (await body(res)).items.map((w: { id: string }) => w.id);
    };
    expect(await ids('?status=running,waiting_user')).toEqual([blog.id, shop.id]);
    expect(await ids('?status=pending')).toEqual([notes.id]);
    expect(await ids('?q=shop')).toEqual([notes.id, blog.id, shop.id]); // requirement, title, both
    expect(await ids('?q=CART')).toEqual([shop.id]);
    expect(await ids('?q=shop&status=running')).toEqual([shop.id]);
    expect(await ids('?q=nothing%20like%20this')).toEqual([]);
    // LIKE's wildcards are searched for as text.
    const percent = await createWorkflow(server, ann, project.id, 'Reach 100% coverage');
    expect(await ids('?q=%25')).toEqual([percent.id]);
    expect(await ids('?q=_')).toEqual([]);
    // The filter holds across pages.
    const first = await body(await list(project.id, '?q=shop&limit=2'));
    expect(first.items.map((w: { id: string }) => w.id)).toEqual([notes.id, blog.id]);
    const second = await body(await list(project.id, `?q=shop&limit=2&cursor=${first.next_cursor}`));
    expect(second.items.map((w: { id: string }) => w.id)).toEqual([shop.id]);
  });

  it.each(['bogus', '', 'running,', 'RUNNING', 'running,waiting_approval'])(
    'refuses the status filter %j with 400',
    async (status) => {
      const project = await createProject(server, ann, 'Bad filter');
      const res = await list(project.id, `?status=${encodeURIComponent(status)}`);
      expect(res.status).toBe(400);
      expect((await body(res)).error).toMatchObject({
        code: 'invalid_input',
        message: expect.stringContaining('status'),
      });
    },
  );

  it('refuses a repeated or overlong search', async () => {
    const project = await createProject(server, ann, 'Bad search');
    expect((await list(project.id, '?q=a&q=b')).status).toBe(400);
    expect((await list(project.id, `?q=${'x'.repeat(201)}`)).status).toBe(400);
  });

  it('gives each list item its progress from the latest snapshot (null before a plan)', async () => {
    const project = await createProject(server, ann, 'Progress');
    const fresh = await createWorkflow(server, ann, project.id);
    const midway = await createWorkflow(server, ann, project.id);
    const done = await createWorkflow(server, ann, project.id);
    const steps = (statuses: string[]) =>
      statuses.map((status, i) => ({ title: `S${i}`, description: `d${i}`, status }));
    await storeSnapshot(server.deps.db, midway.id, 1, {
      phase: 'executing',
      current_step: 0,
      steps: steps(['running', 'pending', 'pending']),
    });
    await storeSnapshot(server.deps.db, midway.id, 2, {
      phase: 'executing',
      current_step: 2,
      steps: steps(['done', 'done', 'running']),
    });
    await storeSnapshot(server.deps.db, done.id, 1, {
      phase: 'completed',
      current_step: null,
      steps: steps(['done', 'done']),
    });
    const items = (await body(await list(project.id))).items as { id: string; progress: unknown }[];
    expect(Object.fromEntries(items.map((w) => [w.id, w.progress]))).toEqual({
      [fresh.id]: null,
      [midway.id]: { done: 2, total: 3 },
      [done.id]: { done: 2, total: 2 },
    });
  });

  it('lists the workflows waiting for the caller across their projects', async () => {
    const waiting = async (as: string) => {
      const res = await server.request('/svc/api/me/waiting', { as });
      expect(res.status).toBe(200);
      return body(res);
    };
    const carol = await server.login('carol');
    const dave = await server.login('dave');
    const mine = await createProject(server, carol, 'Carol shop');
    const theirs = await createProject(server, dave, 'Dave shop');
    const asking = await createWorkflow(server, carol, mine.id, 'Build a till');
    await createWorkflow(server, carol, mine.id, 'Not asking');
    const hidden = await createWorkflow(server, dave, theirs.id, 'Dave asks');
    await setStatus(asking.id, 'waiting_user', 'Which currency?');
    await setStatus(hidden.id, 'waiting_user', 'Secret question?');
    expect(await waiting(carol)).toEqual({
      count: 1,
      items: [
        {
          id: asking.id,
          project_id: mine.id,
          project_name: 'Carol shop',
          number: 1,
          title: 'Build a till',
          question: 'Which currency?',
        },
      ],
    });
    // Dave's question becomes carol's business once she is a member.
    await addMember(server, dave, theirs.id, 'carol');
    expect((await waiting(carol)).count).toBe(2);
    // Answered, deleted: gone from the list.
    await setStatus(asking.id, 'running');
    expect((await waiting(carol)).items.map((w: { id: string }) => w.id)).toEqual([hidden.id]);
    expect((await server.request(`/svc/api/projects/${theirs.id}`, { method: 'DELETE', as: dave })).status).toBe(204);
    expect(await waiting(carol)).toEqual({ count: 0, items: [] });
    expect((await server.request('/svc/api/me/waiting')).status).toBe(401);
  });

  it("tells a waiting question's choices, default and deadline, and leaves them out of a free-text question (decision 0079)", async () => {
    const erin = await server.login('erin');
    const project = await createProject(server, erin, 'Erin shop');
    const choosing = await createWorkflow(server, erin, project.id, 'Deploy');
    const free = await createWorkflow(server, erin, project.id, 'Name it');
    const deadline = new Date('2030-01-02T03:04:05.000Z');
    await server.deps.db.workflow.update({
      where: { id: choosing.id },
      data: {
        status: 'waiting_user',
        question: 'Deploy now?',
        question_choices: JSON.stringify(['yes', 'no']),
        question_default: 'no',
        question_deadline: deadline,
      },
    });
    await setStatus(free.id, 'waiting_user', 'Which name?');
    const res = await server.request('/svc/api/me/waiting', { as: erin });
    const items = (await body(res)).items as Record<string, unknown>[];
    expect(items.find((w) => w.id === choosing.id)).toMatchObject({
      question: 'Deploy now?',
      choices: ['yes', 'no'],
      default: 'no',
      deadline: deadline.toISOString(),
    });
    const plain = items.find((w) => w.id === free.id)!;
    expect(plain.question).toBe('Which name?');
    expect(plain).not.toHaveProperty('choices');
    expect(plain).not.toHaveProperty('default');
    expect(plain).not.toHaveProperty('deadline');
  });
});
