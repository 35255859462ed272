import { StaggeredSweep } from './staggered-sweep';

describe('StaggeredSweep', () => {
  const sweeps: StaggeredSweep<number>[] = [];
  const sweepOf = (periodMs: number) => {
    const visits: number[] = [];
    const sweep = new StaggeredSweep<number>(periodMs, (member) => visits.push(member));
    sweeps.push(sweep);
    return { sweep, visits };
  };
  afterAll(() => sweeps.forEach((sweep) => sweep.stop()));

  it('visits every member once a period, in even slices', () => {
    const { sweep, visits } = sweepOf(30_000);
    expect(sweep.sliceCount).toBe(30);
    for (let member = 0; member < 300; member++) sweep.add(member);
    const perTick: number[] = [];
    for (let tick = 0; tick < sweep.sliceCount; tick++) {
      const before = visits.length;
      sweep.tick();
      perTick.push(visits.length - before);
    }
    expect(perTick).toEqual(Array(30).fill(10));
    expect([...visits].sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    // the next period visits them again
    for (let tick = 0; tick < sweep.sliceCount; tick++) sweep.tick();
    expect(visits).toHaveLength(600);
  });

  it('no longer visits a deleted member, and adds a member once', () => {
    const { sweep, visits } = sweepOf(30_000);
    for (const member of [1, 2, 3]) sweep.add(member);
    sweep.add(2);
    sweep.delete(1);
    sweep.delete(99);
    for (let tick = 0; tick < sweep.sliceCount; tick++) sweep.tick();
    expect(visits.sort()).toEqual([2, 3]);
  });

  it('sweeps a short period in one slice', () => {
    const { sweep, visits } = sweepOf(100);
    expect(sweep.sliceCount).toBe(1);
    sweep.add(7);
    sweep.add(8);
    sweep.tick();
    expect(visits).toEqual([7, 8]);
  });
});
