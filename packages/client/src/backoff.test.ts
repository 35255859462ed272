import { backoffDelay } from './backoff';

describe('backoffDelay', () => {
  it('doubles per attempt without jitter and stops at the cap', () => {
    const opts = { baseMs: 100, maxMs: 1000, jitter: 0 };
    expect([0, 1, 2, 3, 4, 10].map((a) => backoffDelay(a, opts))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('keeps jittered delays between the fixed part and the full delay', () => {
    const low = backoffDelay(3, { baseMs: 100, maxMs: 10_000, jitter: 0.5, random: () => 0 });
    const high = backoffDelay(3, { baseMs: 100, maxMs: 10_000, jitter: 0.5, random: () => 0.999999 });
    expect(low).toBe(400);
    expect(high).toBe(800);
  });
});
