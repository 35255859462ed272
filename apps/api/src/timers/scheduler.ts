import type { Logger } from 'pino';
import type { Db, Timer as TimerRow } from '@svc/db';
import { on, type ClusterBus } from '../cluster/bus';
import { WakeLoop } from '../lib/wake-loop';

export interface TimerSchedulerDeps {
  db: Db;
  logger: Logger;
  /**
   * Resumes a workflow whose timer fired, with the timer's reason (the dispatcher); answers a question
   * whose deadline passed with its default (the lifecycle; it answers once however many replicas call).
   */
  target: {
    timerFired(workflowId: string, reason: string): Promise<void>;
    questionTimedOut(workflowId: string, deadline: Date): Promise<unknown>;
  };
  /** the other replicas: told when timers change here, and telling this one when theirs change */
  bus: ClusterBus;
  /** Longest sleep between looks at the table (timers another server created are seen by then). */
  maxSleepMs?: number;
}

const DUE_PAGE = 100;
/** A question with a deadline still open. */
const OPEN_DEADLINE = { status: 'waiting_user', deleted_at: null, question_deadline: { not: null } } as const;

/**
 * Fires stored timers once, at their time. The table is the schedule: the scheduler sleeps until the
 * earliest pending timer, so timers set before a restart fire after it. Every replica schedules every
 * timer and claims it with a conditional UPDATE (pending -> fired), so it fires once, on whichever
 * replica is alive and first; a timer set on one replica wakes the others' schedulers over the bus.
 * An open question's deadline (decision 0075) is scheduled the same way, from the workflows table.
 */
export class TimerScheduler {
  private readonly maxSleepMs: number;
  private readonly stopListening: () => void;
  private readonly loop: WakeLoop;

  constructor(private readonly deps: TimerSchedulerDeps) {
    this.maxSleepMs = deps.maxSleepMs ?? 30_000;
    this.loop = new WakeLoop(() => this.tick(), deps.logger, 'timer scheduling');
    this.stopListening = on(deps.bus, 'timers', () => this.loop.wake());
  }

  start(): void {
    this.loop.start();
  }

  /** Timers changed here: this replica and the others look at the table again now. */
  notify(): void {
    this.deps.bus.publish({ type: 'timers' });
    this.loop.wake();
  }

  async stop(): Promise<void> {
    this.stopListening();
    await this.loop.stop();
  }

  /** Fires what is due; returns how long to sleep until the next pending timer. */
  private async tick(): Promise<number> {
    const { db } = this.deps;
    for (;;) {
      const now = new Date();
      const due = await db.timer.findMany({
        where: { status: 'pending', fire_at: { lte: now } },
        orderBy: { fire_at: 'asc' },
        take: DUE_PAGE,
      });
      for (const timer of due) await this.fire(timer, now);
      if (due.length < DUE_PAGE || this.loop.isStopped) break;
    }
    await this.answerDueQuestions();
    const [next, nextQuestion] = await Promise.all([
      db.timer.findFirst({ where: { status: 'pending' }, orderBy: { fire_at: 'asc' }, select: { fire_at: true } }),
      db.workflow.findFirst({
        where: OPEN_DEADLINE,
        orderBy: { question_deadline: 'asc' },
        select: { question_deadline: true },
      }),
    ]);
    const times = [next?.fire_at, nextQuestion?.question_deadline].filter((t): t is Date => t != null);
    if (times.length === 0) return this.maxSleepMs;
    const earliest = Math.min(...times.map((t) => t.getTime()));
    return Math.min(Math.max(earliest - Date.now(), 0), this.maxSleepMs);
  }

  /** Questions whose deadline passed get their default (a page at a time; each answers at most once). */
  private async answerDueQuestions(): Promise<void> {
    for (;;) {
      const due = await this.deps.db.workflow.findMany({
        where: { ...OPEN_DEADLINE, question_deadline: { lte: new Date() } },
        orderBy: { question_deadline: 'asc' },
        select: { id: true, question_deadline: true },
        take: DUE_PAGE,
      });
      let answered = 0;
      for (const { id, question_deadline } of due) {
        if (await this.deps.target.questionTimedOut(id, question_deadline!)) answered++;
      }
      // A page that answered nothing (others answered them meanwhile) would come back the same.
      if (due.length < DUE_PAGE || answered === 0 || this.loop.isStopped) return;
    }
  }

  private async fire(timer: TimerRow, now: Date): Promise<void> {
    const { count } = await this.deps.db.timer.updateMany({
      where: { id: timer.id, status: 'pending' },
      data: { status: 'fired', fired_at: now },
    });
    if (count !== 1) return; // another server fired it, or it was deleted meanwhile
    this.deps.logger.info({ timer_id: timer.id, workflow_id: timer.workflow_id }, 'timer fired');
    await this.deps.target.timerFired(timer.workflow_id, timer.reason);
  }
}
