import { WORKER_PROTOCOL_VERSION, type QueueDepth } from '@svc/protocol';
import { eventually, TestWorker } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { body } from '../support/fixtures';
import { workerSuite } from '../ws/clients';

/** Label routing, the unroutable notice, `--once` connections and the queue by label set (issue 23). */
describe.each(TEST_PROVIDERS)('routing on %s', (provider) => {
  const suite = workerSuite(provider);
  const dispatchRound = () => suite.server.runtime.live.dispatcher.pump();
  const row = (id: string) => suite.server.deps.db.workflow.findUniqueOrThrow({ where: { id } });

  /** A worker connection registered with these labels (and `once`). */
  const register = async (name: string, labels: string[], once = false): Promise<TestWorker> => {
    const worker = await TestWorker.connect(suite.server, suite.token);
    worker.send({
      type: 'register',
      protocol_version: WORKER_PROTOCOL_VERSION,
      name,
      labels,
      capacity: 1,
      version: '1.0.0',
      hostname: 'test-host',
      ...(once ? { once: true } : {}),
    });
    worker.id = (await worker.inbox.next((m) => m.type === 'registered')).worker_id as string;
    suite.workers.push(worker);
    return worker;
  };
  const create = async (requirement: string, extra: Record<string, unknown> = {}) => {
    const res = await suite.server.request(`/svc/api/projects/${suite.projectId}/workflows`, {
      method: 'POST',
      as: suite.alice,
      json: { requirement, ...extra },
    });
    return { status: res.status, body: await body(res) };
  };
  const queue = async (as: string) => suite.server.request('/svc/api/admin/queue', { as });

  it('hands a run only to a worker with all its labels, and says why it waits until one registers', async () => {
    const cpu = await register('cpu-box', ['linux']);
    const created = await create('Train.', { requires: ['linux', 'gpu', 'gpu'] });
    expect(created.status).toBe(201);
    expect(created.body.requires).toEqual(['gpu', 'linux']);
    await eventually(async () => (await row(created.body.id)).waiting_reason !== null, { what: 'the notice' });
    await dispatchRound();
    expect(await row(created.body.id)).toMatchObject({
      assigned_worker_id: null,
      waiting_reason: 'no online worker has the labels gpu, linux',
    });
    const read = await body(await suite.server.request(`/svc/api/workflows/${created.body.id}`, { as: suite.alice }));
    expect(read).toMatchObject({
      requires: ['gpu', 'linux'],
      waiting_reason: 'no online worker has the labels gpu, linux',
    });
    const events = await suite.server.deps.db.event.findMany({
      where: { workflow_id: created.body.id, type: 'workflow_routing' },
    });
    expect(events).toHaveLength(1);

    const gpu = await register('gpu-box', ['gpu', 'linux', 'cuda']);
    await gpu.dispatch(created.body.id, 'start');
    await eventually(async () => (await row(created.body.id)).waiting_reason === null, { what: 'the notice to clear' });
    expect(cpu.inbox.ofType('dispatch').filter((d) => d.workflow_id === created.body.id)).toEqual([]);
    // The row is cleared first, then its event is appended: wait for the event.
    const after = await eventually(
      async () => {
        const rows = await suite.server.deps.db.event.findMany({
          where: { workflow_id: created.body.id, type: 'workflow_routing' },
          orderBy: { seq: 'asc' },
        });
        return rows.length === 2 && rows;
      },
      { what: 'the clearing event' },
    );
    expect(after.map((e) => (e.data as { waiting_reason: string | null }).waiting_reason)).toEqual([
      'no online worker has the labels gpu, linux',
      null,
    ]);
  });

  it('refuses bad labels and a named worker without them, creating nothing', async () => {
    await register('plain', ['linux']);
    const before = await suite.server.deps.db.workflow.count();
    for (const requires of [['has space'], ['a,b'], [''], Array.from({ length: 21 }, (_, i) => `l${i}`), 'gpu'])
      expect((await create('Bad labels.', { requires })).status).toBe(400);
    const named = await create('Here.', { requires: ['gpu'], worker_id: 'plain' });
    expect(named.status).toBe(400);
    expect(named.body.error.message).toContain('does not have the labels gpu');
    expect(await suite.server.deps.db.workflow.count()).toBe(before);
  });

  it('gives a --once connection one run and no second one after it ends', async () => {
    const first = (await create('One.', { requires: ['once-only'] })).body.id as string;
    const second = (await create('Two.', { requires: ['once-only'] })).body.id as string;
    const once = await register('ephemeral', ['once-only'], true);
    const given = await once.inbox.next((m) => m.type === 'dispatch' && m.action === 'start');
    const taken = given.workflow_id as string;
    const other = taken === first ? second : first;
    await once.store(taken, 1, { kind: 'status', data: { status: 'completed' } });
    await dispatchRound();
    expect(
      once.inbox
        .ofType('dispatch')
        .filter((d) => d.action !== 'generate_title')
        .map((d) => d.workflow_id),
    ).toEqual([taken]);
    expect(await row(other)).toMatchObject({ assigned_worker_id: null, status: 'pending' });
    const next = await register('regular', ['once-only']);
    await next.dispatch(other, 'start');
  });

  it('gives administrators the queue by label set; others get 403', async () => {
    await create('Any worker.');
    await create('Arm one.', { requires: ['arm64'] });
    await create('Arm two.', { requires: ['arm64'] });
    await register('x86', ['x86']);
    const res = await queue(await suite.server.login('root'));
    expect(res.status).toBe(200);
    const depth = (await body(res)) as QueueDepth;
    expect(depth.groups).toContainEqual({
      requires: ['arm64'],
      depth: 2,
      oldest_wait_seconds: expect.any(Number),
      matching_online_workers: 0,
    });
    expect(depth.total).toBe(depth.groups.reduce((sum, g) => sum + g.depth, 0));
    expect(depth.online_workers).toBeGreaterThanOrEqual(1);
    expect((await queue(suite.alice)).status).toBe(403);
    expect((await queue(suite.token)).status).toBe(403);
  });
});
