import type { Logger } from 'pino';
import type { Db, Schedule } from '@svc/db';
import { DomainError } from '../domain/errors';
import { unfinishedWhere, type WorkflowLifecycle } from '../workflows';

export interface ScheduledRunsDeps {
  db: Db;
  logger: Logger;
  workflows: WorkflowLifecycle;
}

type Outcome = { outcome: 'created'; workflow_id: string } | { outcome: 'skipped' | 'queued'; reason: string };

/** A tick claimed this long ago without an outcome was left by a replica that stopped while handling it. */
export const STRANDED_TICK_MS = 60_000;

/** The idempotency key of a tick's run: a repeated attempt for one tick gets the run the first one made. */
export const tickRunKey = (scheduleId: string, tickAt: Date): string =>
  `schedule:${scheduleId}:${tickAt.toISOString()}`;

/**
 * What a claimed tick does: creates the schedule's run through the create use case (as the schedule's
 * creator, so it is dispatched like any other run), or records why not (its overlap rule, a creator who
 * left the project, a template or worker that no longer exists).
 */
export class ScheduledRuns {
  constructor(private readonly deps: ScheduledRunsDeps) {}

  async handleClaimed(schedule: Schedule, tickAt: Date): Promise<void> {
    const result = await this.decide(schedule, tickAt);
    await this.record(schedule.id, tickAt, result);
  }

  /**
   * Finishes the ticks a stopped replica claimed but left without an outcome: the run it made (found by
   * the tick's idempotency key) is recorded, or the tick is handled now. Taking one over is a
   * conditional update of its time, so one replica does it.
   */
  async resumeStranded(now = new Date()): Promise<void> {
    const { db } = this.deps;
    const stranded = await db.scheduleTick.findMany({
      where: { outcome: 'claimed', updated_at: { lt: new Date(now.getTime() - STRANDED_TICK_MS) } },
      include: { schedule: true },
      take: 100,
    });
    for (const tick of stranded) {
      const { count } = await db.scheduleTick.updateMany({
        where: { id: tick.id, outcome: 'claimed', updated_at: tick.updated_at },
        data: { updated_at: now },
      });
      if (count === 1) await this.finishStranded(tick.schedule, tick.tick_at);
    }
  }

  private async finishStranded(schedule: Schedule, tickAt: Date): Promise<void> {
    const made = await this.deps.db.workflow.findFirst({
      where: { project_id: schedule.project_id, idempotency_key: tickRunKey(schedule.id, tickAt) },
      select: { id: true },
    });
    if (made) await this.record(schedule.id, tickAt, { outcome: 'created', workflow_id: made.id });
    else await this.handleClaimed(schedule, tickAt);
    this.deps.logger.warn({ schedule_id: schedule.id, tick_at: tickAt }, 'finished a tick a stopped replica left');
  }

  /** Makes the run of each queued tick whose schedule has no unfinished run any more. */
  async releaseQueued(): Promise<void> {
    const { db } = this.deps;
    const queued = await db.scheduleTick.findMany({
      where: { outcome: 'queued', schedule: { paused: false, project: { deleted_at: null } } },
      include: { schedule: true },
      orderBy: { tick_at: 'asc' },
    });
    for (const tick of queued) {
      if (await this.unfinishedRuns(tick.schedule_id)) continue;
      // The conditional update is the claim: one replica makes the queued run.
      const { count } = await db.scheduleTick.updateMany({
        where: { id: tick.id, outcome: 'queued' },
        data: { outcome: 'claimed' },
      });
      if (count === 1)
        await this.record(tick.schedule_id, tick.tick_at, await this.create(tick.schedule, tick.tick_at));
    }
  }

  private async decide(schedule: Schedule, tickAt: Date): Promise<Outcome> {
    if (schedule.overlap === 'allow' || !(await this.unfinishedRuns(schedule.id))) return this.create(schedule, tickAt);
    if (schedule.overlap === 'skip') return { outcome: 'skipped', reason: 'the previous run is unfinished' };
    const waiting = await this.deps.db.scheduleTick.count({ where: { schedule_id: schedule.id, outcome: 'queued' } });
    return waiting > 0
      ? { outcome: 'skipped', reason: 'a run is already queued behind the unfinished one' }
      : { outcome: 'queued', reason: 'waits for the unfinished run to finish' };
  }

  private async unfinishedRuns(scheduleId: string): Promise<boolean> {
    return (await this.deps.db.workflow.count({ where: { schedule_id: scheduleId, ...unfinishedWhere } })) > 0;
  }

  private async create(schedule: Schedule, tickAt: Date): Promise<Outcome> {
    const { db, workflows } = this.deps;
    const [project, member] = await Promise.all([
      db.project.findFirst({ where: { id: schedule.project_id, deleted_at: null } }),
      db.projectMember.findUnique({
        where: { project_id_user_id: { project_id: schedule.project_id, user_id: schedule.created_by } },
        include: { user: true },
      }),
    ]);
    if (!project) return { outcome: 'skipped', reason: 'the project is deleted' };
    if (!member) return { outcome: 'skipped', reason: "the schedule's creator is no longer a member of the project" };
    const { user } = member;
    try {
      const { workflow } = await workflows.create(
        project,
        { id: user.id, login: user.login, name: user.name },
        {
          requirement: schedule.requirement,
          ...(schedule.template === null ? {} : { template: schedule.template }),
          ...(schedule.worker_id === null ? {} : { worker_id: schedule.worker_id }),
        },
        { idempotencyKey: tickRunKey(schedule.id, tickAt), scheduleId: schedule.id },
      );
      this.deps.logger.info(
        { schedule_id: schedule.id, workflow_id: workflow.id, tick_at: tickAt },
        'schedule tick ran',
      );
      return { outcome: 'created', workflow_id: workflow.id };
    } catch (err) {
      if (err instanceof DomainError) return { outcome: 'skipped', reason: err.message };
      throw err;
    }
  }

  private async record(scheduleId: string, tickAt: Date, result: Outcome): Promise<void> {
    await this.deps.db.scheduleTick.update({
      where: { schedule_id_tick_at: { schedule_id: scheduleId, tick_at: tickAt } },
      data:
        result.outcome === 'created'
          ? { outcome: 'created', workflow_id: result.workflow_id, reason: null }
          : { outcome: result.outcome, reason: result.reason },
    });
  }
}
