import { pickWorker } from './message';
import type { WorkerSession } from './worker-session';

const session = (workerId: string, capacity: number): WorkerSession => ({
  workerId,
  name: `${workerId}-name`,
  capacity,
  labels: [],
  takesRuns: () => true,
  send: () => true,
  close: () => undefined,
});

describe('pickWorker', () => {
  const small = session('small', 1);
  const big = session('big', 4);

  it('chooses the worker with the smallest share of its capacity in use', () => {
    expect(pickWorker([small, big], new Map(), null)).toBe(small);
    expect(pickWorker([small, big], new Map([['big', 1]]), null)).toBe(small);
    expect(
      pickWorker(
        [small, big],
        new Map([
          ['small', 0],
          ['big', 0],
        ]),
        null,
      ),
    ).toBe(small);
    expect(
      pickWorker(
        [big, small],
        new Map([
          ['small', 0],
          ['big', 0],
        ]),
        null,
      ),
    ).toBe(big);
    expect(
      pickWorker(
        [small, big],
        new Map([
          ['small', 1],
          ['big', 3],
        ]),
        null,
      ),
    ).toBe(big);
  });

  it('returns null when every worker is full', () => {
    expect(
      pickWorker(
        [small, big],
        new Map([
          ['small', 1],
          ['big', 4],
        ]),
        null,
      ),
    ).toBeNull();
    expect(pickWorker([], new Map(), null)).toBeNull();
  });

  it('honours a requested worker by id or name, and waits for it rather than taking another', () => {
    expect(pickWorker([small, big], new Map(), 'big')).toBe(big);
    expect(pickWorker([small, big], new Map(), 'big-name')).toBe(big);
    expect(pickWorker([small, big], new Map([['big', 4]]), 'big')).toBeNull();
    expect(pickWorker([small, big], new Map(), 'elsewhere')).toBeNull();
  });
});
