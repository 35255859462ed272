import type { Cron } from 'croner';
import { latestRunAtOrBefore } from './cron';

/** A tick to claim now; `caughtUp`: it passed while no replica ran and is run late. */
export interface DueTick {
  at: Date;
  caughtUp: boolean;
}

export interface TickState {
  /** the latest tick handled; only later ones are due */
  last_tick_at: Date;
  catch_up: string;
}

/**
 * The ticks of a schedule to claim at `now`, on a runner that started at `startedAt`. A tick since the
 * runner started is on time: the latest one is run (a runner that fell behind does not replay a burst).
 * A tick before it passed while this runner was not running: with `catch_up: latest` the latest such
 * tick is run once, with `none` it is left alone (a replica that ran then has handled it, or nobody
 * did and it is missed). Two replicas may name the same tick, one as on time and one as caught up: the
 * claim in the database lets one of them run it.
 */
export function dueTicks(cron: Cron, state: TickState, startedAt: Date, now: Date): DueTick[] {
  const last = state.last_tick_at.getTime();
  const latest = latestRunAtOrBefore(cron, now);
  if (!latest || latest.getTime() <= last) return [];
  const catchUp = state.catch_up === 'latest';
  if (latest < startedAt) return catchUp ? [{ at: latest, caughtUp: true }] : [];
  const due: DueTick[] = [{ at: latest, caughtUp: false }];
  if (catchUp) {
    const missed = latestRunAtOrBefore(cron, new Date(startedAt.getTime() - 1));
    if (missed && missed.getTime() > last) due.unshift({ at: missed, caughtUp: true });
  }
  return due;
}
