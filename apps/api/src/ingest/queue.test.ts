import { GroupCommitQueue } from './queue';

interface Item {
  key: string;
  n: number;
}

/** A queue whose batches end only when the test says so; records every batch it was given. */
function harness(concurrency: number, maxBatch = 100) {
  const batches: Item[][] = [];
  const finishers: (() => void)[] = [];
  const queue = new GroupCommitQueue<Item>({
    keyOf: (item) => item.key,
    concurrency,
    maxBatch,
    run: (batch) => {
      batches.push(batch);
      return new Promise<void>((resolve) => finishers.push(resolve));
    },
  });
  return { queue, batches, finishers };
}

/**
 * Runs what the queue scheduled (its start is a setImmediate, faked here) and everything that sets off,
 * so a check that no batch started looks after the scheduling that would have started one.
 */
const settle = () => jest.runAllTimersAsync();

describe('GroupCommitQueue', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('collects what arrives while a batch is stored into the next batch', async () => {
    const { queue, batches, finishers } = harness(1);
    queue.push({ key: 'a', n: 1 });
    queue.push({ key: 'b', n: 2 });
    await settle();
    queue.push({ key: 'a', n: 3 });
    queue.push({ key: 'b', n: 4 });
    queue.push({ key: 'c', n: 5 });
    await settle();
    expect(batches.map((b) => b.map((i) => i.n))).toEqual([[1, 2]]);
    finishers.shift()!();
    await settle();
    expect(batches.map((b) => b.map((i) => i.n))).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
    finishers.shift()!();
    await queue.flush();
  });

  it('runs batches of different keys side by side but never two of one key, keeping each key in order', async () => {
    const { queue, batches, finishers } = harness(4);
    queue.push({ key: 'a', n: 1 });
    await settle();
    queue.push({ key: 'a', n: 2 });
    queue.push({ key: 'b', n: 3 });
    queue.push({ key: 'a', n: 4 });
    await settle();
    // b goes at once; a's later items wait for a's batch in flight.
    expect(batches.map((b) => b.map((i) => i.n))).toEqual([[1], [3]]);
    finishers.shift()!();
    await settle();
    expect(batches.map((b) => b.map((i) => i.n))).toEqual([[1], [3], [2, 4]]);
    for (const finish of finishers.splice(0)) finish();
    await queue.flush();
  });

  it('caps batch size and concurrency, and flush waits for everything', async () => {
    const { queue, batches, finishers } = harness(2, 2);
    for (let n = 1; n <= 7; n++) queue.push({ key: `k${n}`, n });
    await settle();
    expect(batches.map((b) => b.length)).toEqual([2, 2]);
    const flushed = queue.flush();
    while (finishers.length > 0) {
      expect(finishers.length).toBeLessThanOrEqual(2);
      finishers.shift()!();
      await settle();
    }
    await flushed;
    expect(
      batches
        .flat()
        .map((i) => i.n)
        .sort(),
    ).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(Math.max(...batches.map((b) => b.length))).toBe(2);
  });
});
