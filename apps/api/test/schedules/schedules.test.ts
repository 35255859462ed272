import { eventually } from '@svc/test-kit';
import type { Schedule } from '@svc/protocol';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject } from '../support/fixtures';
import { STRANDED_TICK_MS, tickRunKey } from '../../src/schedules/scheduled-runs';

const EVERY_TWO_SECONDS = '*/2 * * * * *';

describe.each(TEST_PROVIDERS)('schedules on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer(provider);
    alice = await server.login('alice');
    bob = await server.login('bob');
    projectId = (await createProject(server, alice)).id;
  });
  afterAll(async () => server?.close());

  const create = (json: object, as = alice, project = projectId) =>
    server.request(`/svc/api/projects/${project}/schedules`, { method: 'POST', as, json });
  const get = async (id: string): Promise<Schedule> =>
    body(await server.request(`/svc/api/schedules/${id}`, { as: alice }));
  const runsOf = (scheduleId: string) =>
    server.deps.db.workflow.findMany({ where: { schedule_id: scheduleId }, orderBy: { created_at: 'asc' } });

  it('creates a run per tick as its creator, and shows its next fire times and ticks', async () => {
    const res = await create({
      name: 'nightly',
      cron: EVERY_TWO_SECONDS,
      timezone: 'Europe/Berlin',
      requirement: 'Check the links',
      overlap: 'allow',
    });
    expect(res.status).toBe(201);
    const schedule = await body<Schedule>(res);
    expect(schedule).toMatchObject({ name: 'nightly', overlap: 'allow', catch_up: 'none', paused: false });
    const next = schedule.next_runs.map((t) => Date.parse(t));
    expect(next).toHaveLength(5);
    expect(next.slice(1).map((t, i) => t - next[i]!)).toEqual([2000, 2000, 2000, 2000]);

    const ticked = await eventually(async () => {
      const shown = await get(schedule.id);
      return shown.recent_ticks.some((t) => t.outcome === 'created') && shown;
    });
    const tick = ticked.recent_ticks.find((t) => t.outcome === 'created')!;
    const run = await server.deps.db.workflow.findUniqueOrThrow({ where: { id: tick.workflow_id! } });
    const aliceId = (await server.deps.db.user.findFirstOrThrow({ where: { login: 'alice' } })).id;
    expect(run).toMatchObject({ schedule_id: schedule.id, requirement: 'Check the links', created_by: aliceId });
    expect(new Date(tick.tick_at).getUTCSeconds() % 2).toBe(0);
    expect(tick.caught_up).toBe(false);
    // The list shows it too.
    const list = await body<Schedule[]>(
      await server.request(`/svc/api/projects/${projectId}/schedules`, { as: alice }),
    );
    expect(list.map((s) => s.id)).toContain(schedule.id);
    await server.request(`/svc/api/schedules/${schedule.id}`, { method: 'DELETE', as: alice });
  });

  it.each([
    ['a bad cron', { cron: 'every day' }, /body\.cron/],
    ['a cron that never fires', { cron: '0 0 30 2 *' }, /never fires/],
    ['an unknown time zone', { timezone: 'Mars/Olympus' }, /body\.timezone/],
    ['an unknown template', { template: 'nope' }, /body\.template/],
    ['an unknown worker', { worker_id: 'nope' }, /body\.worker_id/],
    ['an unknown overlap', { overlap: 'sometimes' }, /overlap/],
  ])('refuses %s with 400 and creates nothing', async (_name, fields, message) => {
    const before = await server.deps.db.schedule.count();
    const res = await create({ name: 'bad', cron: '* * * * *', requirement: 'r', ...fields });
    expect(res.status).toBe(400);
    expect((await body<{ error: { message: string } }>(res)).error.message).toMatch(message);
    expect(await server.deps.db.schedule.count()).toBe(before);
  });

  it("answers 404 for another project's schedule and 409 for a name taken in the project", async () => {
    const schedule = await body<Schedule>(await create({ name: 'mine', cron: '0 9 * * 1', requirement: 'r' }));
    expect((await create({ name: 'mine', cron: '0 9 * * 1', requirement: 'r' })).status).toBe(409);
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/pause'],
      ['POST', '/resume'],
    ] as const) {
      const res = await server.request(`/svc/api/schedules/${schedule.id}${path}`, {
        method,
        as: bob,
        ...(method === 'PATCH' ? { json: { name: 'taken over' } } : {}),
      });
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
    expect((await create({ name: 'x', cron: '* * * * *', requirement: 'r' }, bob)).status).toBe(404);
    expect(await get(schedule.id)).toMatchObject({ paused: false, name: 'mine' });
    // A bad patch changes nothing.
    const bad = await server.request(`/svc/api/schedules/${schedule.id}`, {
      method: 'PATCH',
      as: alice,
      json: { name: 'renamed', timezone: 'Not/AZone' },
    });
    expect(bad.status).toBe(400);
    expect((await get(schedule.id)).name).toBe('mine');
  });

  it('pauses (no fire times) and resumes a schedule', async () => {
    const schedule = await body<Schedule>(await create({ name: 'pausable', cron: '0 9 * * *', requirement: 'r' }));
    const paused = await body<Schedule>(
      await server.request(`/svc/api/schedules/${schedule.id}/pause`, { method: 'POST', as: alice }),
    );
    expect(paused).toMatchObject({ paused: true, next_runs: [] });
    const resumed = await body<Schedule>(
      await server.request(`/svc/api/schedules/${schedule.id}/resume`, { method: 'POST', as: alice }),
    );
    expect(resumed.paused).toBe(false);
    expect(resumed.next_runs).toHaveLength(5);
    const patched = await body<Schedule>(
      await server.request(`/svc/api/schedules/${schedule.id}`, {
        method: 'PATCH',
        as: alice,
        json: { cron: '30 2 * * *', timezone: 'Europe/Berlin', overlap: 'queue_one' },
      }),
    );
    expect(patched).toMatchObject({ cron: '30 2 * * *', timezone: 'Europe/Berlin', overlap: 'queue_one' });
  });

  it('finishes the ticks a stopped replica claimed and left: makes the missing run, records one it made', async () => {
    // Paused at 09:00 daily: the schedule itself never ticks here; only the stranded ticks are handled.
    const schedule = await body<Schedule>(
      await create({ name: 'stranded', cron: '0 9 * * *', requirement: 'r', overlap: 'allow' }),
    );
    await server.request(`/svc/api/schedules/${schedule.id}/pause`, { method: 'POST', as: alice });
    const { db } = server.deps;
    const longAgo = new Date(Date.now() - 2 * STRANDED_TICK_MS);
    const [lost, made] = [new Date('2026-01-01T09:00:00Z'), new Date('2026-01-02T09:00:00Z')];
    for (const tickAt of [lost, made])
      await db.scheduleTick.create({ data: { schedule_id: schedule.id, tick_at: tickAt, updated_at: longAgo } });
    const creator = await db.user.findFirstOrThrow({ where: { login: 'alice' } });
    const earlier = await db.workflow.create({
      data: {
        project_id: projectId,
        created_by: creator.id,
        requirement: 'r',
        title: 'r',
        number: 1000,
        schedule_id: schedule.id,
        idempotency_key: tickRunKey(schedule.id, made),
      },
    });
    // Any change of a schedule wakes the runner.
    await create({ name: 'waker', cron: '0 9 * * *', requirement: 'r' });
    const ticks = await eventually(async () => {
      const rows = await db.scheduleTick.findMany({ where: { schedule_id: schedule.id }, orderBy: { tick_at: 'asc' } });
      return rows.every((t) => t.outcome === 'created') && rows;
    });
    expect(ticks[1]!.workflow_id).toBe(earlier.id);
    const runs = await runsOf(schedule.id);
    expect(runs).toHaveLength(2);
    expect(runs.map((r) => r.id)).toContain(ticks[0]!.workflow_id);
  });

  it('overlap skip: a tick while the previous run is unfinished is skipped', async () => {
    // No worker runs here: the first run stays pending (unfinished).
    const schedule = await body<Schedule>(
      await create({ name: 'skipper', cron: EVERY_TWO_SECONDS, requirement: 'r', overlap: 'skip' }),
    );
    await eventually(async () => {
      const ticks = (await get(schedule.id)).recent_ticks;
      return ticks.some((t) => t.outcome === 'skipped' && t.reason === 'the previous run is unfinished');
    });
    await server.request(`/svc/api/schedules/${schedule.id}/pause`, { method: 'POST', as: alice });
    expect(await runsOf(schedule.id)).toHaveLength(1);
  });

  it('overlap queue_one: one tick waits and its run is made when the unfinished one finishes', async () => {
    const schedule = await body<Schedule>(
      await create({ name: 'queuer', cron: EVERY_TWO_SECONDS, requirement: 'r', overlap: 'queue_one' }),
    );
    // One queued and at least one skipped tick behind the first run, which stays pending.
    const queued = await eventually(async () => {
      const ticks = (await get(schedule.id)).recent_ticks;
      const waiting = ticks.find((t) => t.outcome === 'queued');
      return waiting !== undefined && ticks.some((t) => t.outcome === 'skipped') && waiting;
    });
    const [first, ...others] = await runsOf(schedule.id);
    expect(others).toEqual([]);
    expect((await server.request(`/svc/api/workflows/${first!.id}/cancel`, { method: 'POST', as: alice })).status).toBe(
      200,
    );
    const made = await eventually(async () => {
      const tick = await server.deps.db.scheduleTick.findUniqueOrThrow({
        where: { schedule_id_tick_at: { schedule_id: schedule.id, tick_at: new Date(queued.tick_at) } },
      });
      return tick.outcome === 'created' && tick;
    });
    expect((await server.deps.db.workflow.findUniqueOrThrow({ where: { id: made.workflow_id! } })).schedule_id).toBe(
      schedule.id,
    );
    await server.request(`/svc/api/schedules/${schedule.id}/pause`, { method: 'POST', as: alice });
  });
});
