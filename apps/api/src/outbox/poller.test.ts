import { Poller, pollWait } from './poller';

/** A promise with its resolve, to let a pass finish when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** A poller whose passes wait on gates the test opens, recording each call of `pass` and `nextDue`. */
function scriptedPoller() {
  const calls: string[] = [];
  const gates: ReturnType<typeof gate>[] = [];
  const passStarted: (() => void)[] = [];
  let asked!: () => void;
  const nextDueAsked = new Promise<void>((resolve) => (asked = resolve));
  const poller = new Poller(
    async () => {
      calls.push('pass');
      const g = gate();
      gates.push(g);
      passStarted.shift()?.();
      await g.opened;
    },
    async () => {
      calls.push('nextDue');
      asked();
      return null;
    },
    60_000,
    (err) => {
      throw err;
    },
  );
  const untilPass = (n: number) =>
    gates.length >= n ? Promise.resolve() : new Promise<void>((resolve) => passStarted.push(resolve));
  return { poller, calls, gates, untilPass, nextDueAsked };
}

describe('Poller', () => {
  it('asks when work is next due only before it sleeps, not after a pass that was kicked meanwhile', async () => {
    const { poller, calls, gates, untilPass, nextDueAsked } = scriptedPoller();
    poller.start();
    await untilPass(1);
    poller.kick(); // work arrived during the first pass: the next pass follows at once
    gates[0]!.open();
    await untilPass(2);
    gates[1]!.open();
    await nextDueAsked;
    expect(calls).toEqual(['pass', 'pass', 'nextDue']);
    await poller.stop();
  });

  it('does not ask when work is due once stopped during a pass', async () => {
    const { poller, calls, gates, untilPass } = scriptedPoller();
    poller.start();
    await untilPass(1);
    const stopped = poller.stop();
    gates[0]!.open();
    await stopped;
    expect(calls).toEqual(['pass']);
  });
});

describe('pollWait', () => {
  const now = Date.parse('2026-11-29T10:00:00Z');
  it('sleeps until the next due moment, at most the cap, never below zero', () => {
    expect(pollWait(null, now, 30_000)).toBe(30_000);
    expect(pollWait(new Date(now + 200), now, 30_000)).toBe(200);
    expect(pollWait(new Date(now + 60_000), now, 30_000)).toBe(30_000);
    expect(pollWait(new Date(now - 5), now, 30_000)).toBe(0);
  });
});

describe('Poller when idle', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function idlePoller() {
    let passes = 0;
    const poller = new Poller(
      async () => void passes++,
      async () => null,
      100,
      (err) => {
        throw err;
      },
      60_000,
    );
    return { poller, passes: () => passes };
  }

  it('sleeps the idle interval when nothing is due, and comes within pollMs once nudged', async () => {
    const { poller, passes } = idlePoller();
    poller.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(passes()).toBe(1);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(passes()).toBe(1);
    poller.nudge();
    await jest.advanceTimersByTimeAsync(100);
    expect(passes()).toBe(2);
    // the nudge was for one pass: idle again after it
    await jest.advanceTimersByTimeAsync(10_000);
    expect(passes()).toBe(2);
    await jest.advanceTimersByTimeAsync(50_000);
    expect(passes()).toBe(3);
    await poller.stop();
  });

  it('keeps a nudge that came during a pass for the sleep after it', async () => {
    let release!: () => void;
    let passes = 0;
    const poller = new Poller(
      async () => {
        passes++;
        if (passes === 1) await new Promise<void>((resolve) => (release = resolve));
      },
      async () => null,
      100,
      (err) => {
        throw err;
      },
      60_000,
    );
    poller.start();
    await jest.advanceTimersByTimeAsync(0);
    poller.nudge();
    release();
    await jest.advanceTimersByTimeAsync(100);
    expect(passes).toBe(2);
    await poller.stop();
  });
});
