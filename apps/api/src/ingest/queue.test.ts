import { GroupCommitQueue, type Batch } from './queue';

interface Item {
  key: string;
  n: number;
  /** may follow a batch in flight (when the queue pipelines) */
  plain?: boolean;
}

/** A queue whose batches end only when the test says so; records every batch it was given. */
function harness(concurrency: number, maxBatch = 100, pipelined = false) {
  const batches: Item[][] = [];
  const started: Batch<Item>[] = [];
  const finishers: (() => void)[] = [];
  const queue = new GroupCommitQueue<Item>({
    keyOf: (item) => item.key,
    concurrency,
    maxBatch,
    ...(pipelined && { mayFollow: (item: Item) => item.plain === true }),
    run: (batch) => {
      batches.push(batch.items);
      started.push(batch);
      return new Promise<void>((resolve) => finishers.push(resolve));
    },
  });
  return { queue, batches, started, finishers };
}

const numbers = (batches: Item[][]) => batches.map((b) => b.map((i) => i.n));

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

  it('starts the batch after a full one on a later turn of the event loop, not in the same one', async () => {
    const { queue, batches, finishers } = harness(1, 2);
    for (let n = 1; n <= 5; n++) queue.push({ key: 'a', n });
    await settle();
    expect(numbers(batches)).toEqual([[1, 2]]);
    finishers.shift()!();
    // Every promise reaction the batch's end sets off has run; the backlog waits for the next turn,
    // so what the first batch sent (its acks and events) is written before the next one runs.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(numbers(batches)).toEqual([[1, 2]]);
    await settle();
    expect(numbers(batches)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    finishers.shift()!();
    await settle();
    finishers.shift()!();
    await queue.flush();
    expect(numbers(batches)).toEqual([[1, 2], [3, 4], [5]]);
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

  describe('pipelined (mayFollow)', () => {
    it('starts one follower of a batch in flight with the items that arrive meanwhile, and a third only after', async () => {
      const { queue, batches, started, finishers } = harness(4, 100, true);
      queue.push({ key: 'a', n: 1, plain: true });
      await settle();
      queue.push({ key: 'a', n: 2, plain: true });
      queue.push({ key: 'a', n: 3, plain: true });
      await settle();
      expect(numbers(batches)).toEqual([[1], [2, 3]]);
      expect(started[1]!.follows).toBe(started[0]);
      queue.push({ key: 'a', n: 4, plain: true });
      await settle();
      // Two of a key in flight at most: 4 waits.
      expect(numbers(batches)).toEqual([[1], [2, 3]]);
      finishers.shift()!();
      await settle();
      // The follower now leads; 4 follows it.
      expect(numbers(batches)).toEqual([[1], [2, 3], [4]]);
      expect(started[2]!.follows).toBe(started[1]);
      for (const finish of finishers.splice(0)) finish();
      await queue.flush();
    });

    it('never follows a batch holding an item that may not follow, and a key stops at its first such item', async () => {
      const { queue, batches, started, finishers } = harness(4, 100, true);
      queue.push({ key: 'a', n: 1 });
      queue.push({ key: 'b', n: 2, plain: true });
      await settle();
      expect(numbers(batches)).toEqual([[1, 2]]);
      queue.push({ key: 'b', n: 3, plain: true });
      await settle();
      // The batch in flight holds a (not plain): nothing follows it, not even b's plain items.
      expect(numbers(batches)).toEqual([[1, 2]]);
      finishers.shift()!();
      await settle();
      expect(numbers(batches)).toEqual([[1, 2], [3]]);
      queue.push({ key: 'b', n: 4 });
      queue.push({ key: 'b', n: 5, plain: true });
      queue.push({ key: 'c', n: 6, plain: true });
      await settle();
      // c has nothing in flight: it goes alone; b's 4 may not follow, so 5 (behind it) waits too.
      expect(numbers(batches)).toEqual([[1, 2], [3], [6]]);
      expect(started[2]!.follows).toBeNull();
      for (const finish of finishers.splice(0)) finish();
      await settle();
      expect(numbers(batches)).toEqual([[1, 2], [3], [6], [4, 5]]);
      for (const finish of finishers.splice(0)) finish();
      await queue.flush();
    });

    it('a follower holds only keys of the batch it follows', async () => {
      const { queue, batches, started, finishers } = harness(3, 100, true);
      queue.push({ key: 'a', n: 1, plain: true });
      await settle();
      queue.push({ key: 'b', n: 2, plain: true });
      await settle();
      expect(numbers(batches)).toEqual([[1], [2]]);
      queue.push({ key: 'a', n: 3, plain: true });
      queue.push({ key: 'b', n: 4, plain: true });
      await settle();
      // One concurrency slot left: a follower of a's batch, with a's item only.
      expect(numbers(batches)).toEqual([[1], [2], [3]]);
      expect(started[2]!.follows).toBe(started[0]);
      for (const finish of finishers.splice(0)) finish();
      await settle();
      for (const finish of finishers.splice(0)) finish();
      await queue.flush();
      expect(numbers(batches).flat().sort()).toEqual([1, 2, 3, 4]);
    });
  });
});
