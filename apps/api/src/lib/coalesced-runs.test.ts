import { CoalescedRuns } from './coalesced-runs';

/** A round the test ends by hand. */
function gatedRounds() {
  const releases: (() => void)[] = [];
  let rounds = 0;
  const round = () =>
    new Promise<void>((resolve) => {
      rounds += 1;
      releases.push(resolve);
    });
  return { round, rounds: () => rounds, release: () => releases.shift()!() };
}

describe('CoalescedRuns', () => {
  it('folds any number of calls made during a round into one more round', async () => {
    const gate = gatedRounds();
    const runs = new CoalescedRuns(gate.round, () => false);
    const first = runs.run();
    const during = [runs.run(), runs.run(), runs.run()];
    expect(gate.rounds()).toBe(1);
    gate.release();
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(gate.rounds()).toBe(2);
    gate.release();
    await Promise.all([first, ...during]);
    expect(gate.rounds()).toBe(2);
  });

  it('runs no further round once closed, and settles whatever the round did', async () => {
    let closed = false;
    const gate = gatedRounds();
    const runs = new CoalescedRuns(gate.round, () => closed);
    const first = runs.run();
    void runs.run().catch(() => undefined);
    closed = true;
    gate.release();
    await first;
    await runs.settled();
    expect(gate.rounds()).toBe(1);
  });
});
