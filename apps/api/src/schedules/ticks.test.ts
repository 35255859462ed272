import { parseCron } from './cron';
import { dueTicks } from './ticks';

const everyTwoSeconds = parseCron({ cron: '*/2 * * * * *', timezone: 'UTC' });
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
const plan = (last: number, started: number, now: number, catchUp: 'none' | 'latest') =>
  dueTicks(everyTwoSeconds, { last_tick_at: at(last), catch_up: catchUp }, at(started), at(now)).map((t) => ({
    s: t.at.getUTCSeconds(),
    caughtUp: t.caughtUp,
  }));

describe('due ticks of a schedule', () => {
  it('runs the latest tick since the runner started, once', () => {
    expect(plan(2, 0, 4, 'none')).toEqual([{ s: 4, caughtUp: false }]);
    expect(plan(4, 0, 5, 'none')).toEqual([]);
    // A runner that fell behind runs the latest tick, not a burst of the ones it slept through.
    expect(plan(2, 0, 9, 'none')).toEqual([{ s: 8, caughtUp: false }]);
  });

  it('leaves ticks missed before the start alone with catch_up none', () => {
    expect(plan(2, 11, 11, 'none')).toEqual([]);
    expect(plan(2, 11, 12, 'none')).toEqual([{ s: 12, caughtUp: false }]);
  });

  it('runs the latest missed tick once with catch_up latest, beside the on-time one', () => {
    expect(plan(2, 11, 11, 'latest')).toEqual([{ s: 10, caughtUp: true }]);
    expect(plan(2, 11, 12, 'latest')).toEqual([
      { s: 10, caughtUp: true },
      { s: 12, caughtUp: false },
    ]);
    // Handled (last tick 10): nothing is caught up again.
    expect(plan(10, 11, 12, 'latest')).toEqual([{ s: 12, caughtUp: false }]);
    // Nothing was missed: the schedule's last tick is the one before the start.
    expect(plan(10, 11, 11, 'latest')).toEqual([]);
  });
});
