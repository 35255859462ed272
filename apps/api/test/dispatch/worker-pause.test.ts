import { WORKER_PROTOCOL_VERSION } from '@svc/protocol';
import { TestWorker } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { body } from '../support/fixtures';
import { workerSuite } from '../ws/clients';

/** An administrator pauses, drains and resumes a worker (issue 29, decision 0074). */
describe.each(TEST_PROVIDERS)('worker pause on %s', (provider) => {
  const suite = workerSuite(provider);
  const dispatchRound = () => suite.server.runtime.live.dispatcher.pump();
  const row = (id: string) => suite.server.deps.db.workflow.findUniqueOrThrow({ where: { id } });

  const register = async (name: string): Promise<TestWorker> => {
    const worker = await TestWorker.connect(suite.server, suite.token);
    worker.send({
      type: 'register',
      protocol_version: WORKER_PROTOCOL_VERSION,
      name,
      labels: [],
      capacity: 1,
      version: '1.0.0',
      hostname: 'test-host',
    });
    worker.id = (await worker.inbox.next((m) => m.type === 'registered')).worker_id as string;
    suite.workers.push(worker);
    return worker;
  };
  const create = async (requirement: string) => {
    const res = await suite.server.request(`/svc/api/projects/${suite.projectId}/workflows`, {
      method: 'POST',
      as: suite.alice,
      json: { requirement },
    });
    expect(res.status).toBe(201);
    return (await body<{ id: string }>(res)).id;
  };
  const admin = async (id: string, what: 'pause' | 'drain' | 'resume', as?: string) =>
    suite.server.request(`/svc/api/admin/workers/${id}/${what}`, {
      method: 'POST',
      as: as ?? (await suite.server.login('root')),
      json: {},
    });

  it('dispatches nothing to a paused worker while an unpaused one takes runs; resume makes it eligible again', async () => {
    const paused = await register('paused-box');
    const pausing = await admin(paused.id!, 'pause');
    expect(pausing.status).toBe(200);
    expect(await body(pausing)).toMatchObject({ id: paused.id, admin_state: 'paused' });

    const first = await create('First.');
    await dispatchRound();
    expect((await row(first)).assigned_worker_id).toBeNull();

    const free = await register('free-box');
    await free.dispatch(first, 'start');
    const second = await create('Second.'); // free-box is full (capacity 1)
    await dispatchRound();
    expect((await row(second)).assigned_worker_id).toBeNull();
    expect(paused.inbox.ofType('dispatch')).toEqual([]);

    // The state is in the workers table: every replica and a restarted server read it from there.
    expect(await suite.server.deps.db.worker.findUniqueOrThrow({ where: { id: paused.id! } })).toMatchObject({
      paused_at: expect.any(Date),
      draining: false,
    });
    const resuming = await admin(paused.id!, 'resume');
    expect(await body(resuming)).toMatchObject({ admin_state: 'active' });
    await paused.dispatch(second, 'start');
    expect((await row(second)).assigned_worker_id).toBe(paused.id);

    // Draining with a run: draining; the listing says so to everyone who may list workers.
    expect(await body(await admin(paused.id!, 'drain'))).toMatchObject({ admin_state: 'draining', active: 1 });
    const idle = await register('idle-box');
    expect(await body(await admin(idle.id!, 'drain'))).toMatchObject({ admin_state: 'drained', active: 0 });
    const listed = await body<{ id: string; admin_state: string }[]>(
      await suite.server.request('/svc/api/workers', { as: suite.alice }),
    );
    expect(listed.find((w) => w.id === idle.id)?.admin_state).toBe('drained');
  });

  it('refuses people who are not administrators and unknown workers, changing nothing', async () => {
    const worker = await register('guarded-box');
    const refused = await admin(worker.id!, 'pause', suite.alice);
    expect(refused.status).toBe(403);
    expect(await body(refused)).toMatchObject({ error: { code: 'forbidden' } });
    expect((await suite.server.deps.db.worker.findUniqueOrThrow({ where: { id: worker.id! } })).paused_at).toBeNull();
    const missing = await admin('no-such-worker', 'pause');
    expect(missing.status).toBe(404);
    expect(await body(missing)).toMatchObject({ error: { code: 'not_found' } });
  });
});
