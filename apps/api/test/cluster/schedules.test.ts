import { createDb, type DbHandle } from '@svc/db';
import type { Schedule } from '@svc/protocol';
import { eventually, Session, startBalancedReplicas, type ApiProcess, type BalancedReplicas } from '@svc/test-kit';
import { CLUSTER_TIMEOUT_MS } from './cluster';

const EVERY_TWO_SECONDS = '*/2 * * * * *';

// Issue 23: two API replicas on PostgreSQL behind haproxy run a schedule's ticks once each, also
// across a restart of both that spans ticks (catch_up latest: one late run; none: no run).
describe('schedules on two replicas behind haproxy', () => {
  let deployment: BalancedReplicas;
  let replicas: ApiProcess[];
  let alice: Session;
  let projectId: string;
  let handle: DbHandle;

  beforeAll(async () => {
    deployment = await startBalancedReplicas(2, { env: { LOG_LEVEL: 'warn' } });
    replicas = deployment.replicas.replicas;
    alice = await Session.signIn(deployment.url, 'alice');
    projectId = (await alice.json<{ id: string }>('/projects', { json: { name: 'cron' } })).id;
    handle = await createDb({ url: deployment.replicas.databaseUrl, poolSize: 2 });
  }, CLUSTER_TIMEOUT_MS);
  afterAll(async () => {
    await handle?.close();
    await deployment?.close();
  }, CLUSTER_TIMEOUT_MS);

  const create = (name: string, fields: object = {}) =>
    alice.json<Schedule>(`/projects/${projectId}/schedules`, {
      json: { name, cron: EVERY_TWO_SECONDS, requirement: `run of ${name}`, overlap: 'allow', ...fields },
    });
  const pause = (id: string) => alice.json<Schedule>(`/schedules/${id}/pause`, { method: 'POST' });
  const ticksOf = (scheduleId: string) =>
    handle.db.scheduleTick.findMany({ where: { schedule_id: scheduleId }, orderBy: { tick_at: 'asc' } });
  const runsOf = (scheduleId: string) => handle.db.workflow.findMany({ where: { schedule_id: scheduleId } });

  /** Every run of the schedule belongs to one tick, and every tick made at most one run. */
  async function expectOneRunPerTick(scheduleId: string): Promise<void> {
    const [ticks, runs] = await Promise.all([ticksOf(scheduleId), runsOf(scheduleId)]);
    const tickTimes = ticks.map((t) => t.tick_at.toISOString());
    expect(new Set(tickTimes).size).toBe(tickTimes.length);
    const runKeys = runs.map((r) => r.idempotency_key);
    expect(new Set(runKeys).size).toBe(runs.length);
    const created = ticks.filter((t) => t.outcome === 'created');
    expect(created.map((t) => t.workflow_id).sort()).toEqual(runs.map((r) => r.id).sort());
    for (const tick of created) {
      const run = runs.find((r) => r.id === tick.workflow_id)!;
      expect(run.idempotency_key).toBe(`schedule:${scheduleId}:${tick.tick_at.toISOString()}`);
    }
  }

  it(
    'fires a */2 second schedule once per tick across both replicas',
    async () => {
      const schedule = await create('every-two-seconds');
      const created = await eventually(
        async () => {
          const done = (await ticksOf(schedule.id)).filter((t) => t.outcome === 'created');
          return done.length >= 5 && done;
        },
        { what: 'five ticks with a run' },
      );
      await pause(schedule.id);
      for (const tick of created) expect(tick.tick_at.getUTCSeconds() % 2).toBe(0);
      await expectOneRunPerTick(schedule.id);
      expect((await runsOf(schedule.id)).every((r) => r.requirement === 'run of every-two-seconds')).toBe(true);
    },
    CLUSTER_TIMEOUT_MS,
  );

  it(
    'after a restart of both replicas that spans ticks: catch_up latest runs one missed tick, none runs none',
    async () => {
      const latest = await create('catch-up-latest', { catch_up: 'latest' });
      const none = await create('catch-up-none', { catch_up: 'none' });
      const schedules = [latest, none];
      for (const { id } of schedules)
        await eventually(async () => (await ticksOf(id)).some((t) => t.outcome === 'created'), {
          what: 'a first run',
        });

      for (const replica of replicas) await replica.stop();
      // Nobody runs ticks now: the last handled ticks are final until the restart.
      const lastBefore = new Map<string, number>();
      for (const { id } of schedules) {
        const row = await handle.db.schedule.findUniqueOrThrow({ where: { id } });
        lastBefore.set(id, row.last_tick_at.getTime());
      }
      const newest = Math.max(...lastBefore.values());
      // The clock passes at least two more ticks of each schedule while no replica runs.
      await eventually(() => Date.now() > newest + 4_500, { what: 'two ticks to pass', intervalMs: 100 });
      const restartedAt = Date.now();
      let firstBackAt = 0;
      for (const replica of replicas) {
        await replica.restart();
        firstBackAt ||= Date.now();
      }

      // Each schedule runs on time again after the restart (so each replica's first look is done).
      for (const { id } of schedules)
        await eventually(
          async () =>
            (await ticksOf(id)).some(
              (t) => t.outcome === 'created' && !t.caught_up && t.tick_at.getTime() >= restartedAt,
            ),
          { what: 'a tick after the restart' },
        );
      // catch_up latest: the ticks missed while down made exactly one run, marked as caught up.
      await eventually(async () => (await ticksOf(latest.id)).some((t) => t.caught_up), { what: 'the catch-up run' });
      for (const { id } of schedules) await pause(id);

      const missedWindow = (id: string) => (t: { tick_at: Date }) =>
        t.tick_at.getTime() > lastBefore.get(id)! && t.tick_at.getTime() < restartedAt;
      // The window's ticks ran only as that one catch-up (it may be a tick during the restart itself).
      expect((await ticksOf(latest.id)).filter(missedWindow(latest.id)).filter((t) => !t.caught_up)).toEqual([]);
      // Each runner catches up at most the latest tick before its own start (ticks.ts). The first one
      // back catches up the window; the second, restarted while the first runs, may name a tick of its
      // own restart as caught up when it looks before the first has claimed that tick on time.
      const caughtUp = (await ticksOf(latest.id)).filter((t) => t.caught_up);
      expect(caughtUp.length).toBeGreaterThanOrEqual(1);
      expect(caughtUp.length).toBeLessThanOrEqual(replicas.length);
      expect(caughtUp.every((t) => t.outcome === 'created')).toBe(true);
      const windowCatchUp = caughtUp[0]!;
      expect(windowCatchUp.tick_at.getTime()).toBeGreaterThan(lastBefore.get(latest.id)!);
      expect(windowCatchUp.tick_at.getTime()).toBeLessThan(firstBackAt);
      // catch_up none: no tick of the window ran.
      expect((await ticksOf(none.id)).filter(missedWindow(none.id))).toEqual([]);
      expect((await ticksOf(none.id)).filter((t) => t.caught_up)).toEqual([]);
      for (const { id } of schedules) await expectOneRunPerTick(id);
    },
    CLUSTER_TIMEOUT_MS * 2,
  );
});
