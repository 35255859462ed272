import pino from 'pino';
import { WakeLoop } from './wake-loop';

const HOUR = 3_600_000;

describe('WakeLoop', () => {
  it('makes one more round for wakes during a round, then sleeps until woken; stop waits for the round', async () => {
    const releases: (() => void)[] = [];
    const started: number[] = [];
    let roundStarted: () => void = () => undefined;
    const loop = new WakeLoop(
      () =>
        new Promise<number>((resolve) => {
          started.push(started.length + 1);
          roundStarted();
          releases.push(() => resolve(HOUR));
        }),
      pino({ level: 'silent' }),
      'test rounds',
    );
    const nextRound = () => new Promise<void>((resolve) => (roundStarted = resolve));
    loop.start();
    expect(started).toEqual([1]);
    loop.wake();
    loop.wake();
    const second = nextRound();
    releases.shift()!();
    await second;
    expect(started).toEqual([1, 2]);
    const third = nextRound();
    releases.shift()!(); // the second round ends and sleeps an hour, unless woken
    loop.wake();
    await third;
    expect(started).toEqual([1, 2, 3]);
    const stopped = loop.stop();
    releases.shift()!();
    await stopped;
    loop.wake();
    expect(started).toEqual([1, 2, 3]);
    expect(loop.isStopped).toBe(true);
  });
});
