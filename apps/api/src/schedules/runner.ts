import type { Logger } from 'pino';
import { classifyDbError, type Db, type Schedule } from '@svc/db';
import { on, type ClusterBus } from '../cluster/bus';
import { WakeLoop } from '../lib/wake-loop';
import { parseCron } from './cron';
import { dueTicks, type DueTick } from './ticks';
import { ScheduledRuns } from './scheduled-runs';
import type { WorkflowLifecycle } from '../workflows';

export interface ScheduleRunnerDeps {
  db: Db;
  logger: Logger;
  /** creates each tick's run, like any other create */
  workflows: WorkflowLifecycle;
  /** the other replicas: told when schedules change here, and telling this one when theirs change */
  bus: ClusterBus;
  /** Longest sleep between looks at the table (also how soon a queued run is made if no finish is heard). */
  maxSleepMs?: number;
}

/**
 * Runs every schedule's ticks on every replica. It sleeps until the earliest next tick of any active
 * schedule, then claims each due tick by inserting its row (unique per schedule and tick): one replica
 * handles a tick, across replicas and restarts. Schedules changed on one replica wake the others over
 * the bus. On its first look after a start it catches up per schedule (`catch_up`, see ticks.ts).
 */
export class ScheduleRunner {
  private startedAt = new Date();
  private readonly maxSleepMs: number;
  private readonly stopListening: () => void;
  private readonly runs: ScheduledRuns;
  private readonly loop: WakeLoop;
  /** whether the last look found an active schedule (true until the first look) */
  private anyActive = true;

  constructor(private readonly deps: ScheduleRunnerDeps) {
    this.maxSleepMs = deps.maxSleepMs ?? 30_000;
    this.loop = new WakeLoop(() => this.tick(), deps.logger, 'schedule ticks');
    this.stopListening = on(deps.bus, 'schedules', () => this.loop.wake());
    this.runs = new ScheduledRuns(deps);
  }

  start(): void {
    this.startedAt = new Date();
    this.loop.start();
  }

  /** Schedules changed here: this replica and the others look at the table again now. */
  notify(): void {
    this.deps.bus.publish({ type: 'schedules' });
    this.loop.wake();
  }

  /**
   * A run finished: a run queued behind it (`queue_one`) may be made now. Only an active schedule
   * queues runs, and a new one wakes every replica (`notify`): without one, there is nothing to look at.
   */
  runFinished(): void {
    if (this.anyActive) this.loop.wake();
  }

  async stop(): Promise<void> {
    this.stopListening();
    await this.loop.stop();
  }

  /** Handles what is due; returns how long to sleep until the next tick of any active schedule. */
  private async tick(): Promise<number> {
    const schedules = await this.deps.db.schedule.findMany({
      where: { paused: false, project: { deleted_at: null } },
      orderBy: { id: 'asc' },
    });
    this.anyActive = schedules.length > 0;
    let next = Date.now() + this.maxSleepMs;
    for (const schedule of schedules) {
      if (this.loop.isStopped) break;
      const at = await this.handle(schedule).catch((err: unknown) => {
        this.deps.logger.error({ err, schedule_id: schedule.id }, 'schedule tick failed');
        return Date.now() + 1000;
      });
      next = Math.min(next, at);
    }
    if (!this.loop.isStopped) {
      await this.runs.resumeStranded();
      await this.runs.releaseQueued();
    }
    return Math.max(next - Date.now(), 0);
  }

  /** Claims and handles the schedule's due ticks; returns when its next tick is (ms since the epoch). */
  private async handle(schedule: Schedule): Promise<number> {
    const cron = parseCron(schedule);
    for (const due of dueTicks(cron, schedule, this.startedAt, new Date())) await this.claim(schedule, due);
    return cron.nextRun(new Date())?.getTime() ?? Number.POSITIVE_INFINITY;
  }

  private async claim(schedule: Schedule, due: DueTick): Promise<void> {
    const { db } = this.deps;
    try {
      await db.scheduleTick.create({
        data: { schedule_id: schedule.id, tick_at: due.at, caught_up: due.caughtUp },
      });
    } catch (err) {
      if (classifyDbError(err) === 'conflict') return; // another replica (or an earlier look) has it
      throw err;
    }
    await db.schedule.updateMany({
      where: { id: schedule.id, last_tick_at: { lt: due.at } },
      data: { last_tick_at: due.at },
    });
    await this.runs.handleClaimed(schedule, due.at);
  }
}
