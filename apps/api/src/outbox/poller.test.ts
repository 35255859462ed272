import { Poller } from './poller';

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
