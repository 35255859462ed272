import { BackgroundWork } from '../lib/background-work';
import { IngestLock } from './ingest-lock';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A section that records when it starts and ends, and ends when told to. */
function section(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    run: async () => {
      log.push(`${name}:start`);
      await done;
      log.push(`${name}:end`);
    },
    finish: () => finish(),
  };
}

describe('IngestLock', () => {
  it('runs shared sections side by side', async () => {
    const lock = new IngestLock();
    const log: string[] = [];
    const a = section(log, 'a');
    const b = section(log, 'b');
    const running = [lock.shared(a.run), lock.shared(b.run)];
    await tick();
    expect(log).toEqual(['a:start', 'b:start']);
    a.finish();
    b.finish();
    await Promise.all(running);
  });

  it('holds an exclusive section until the shared ones end, and later shared ones until it ends', async () => {
    const lock = new IngestLock();
    const log: string[] = [];
    const batch = section(log, 'batch');
    const handBack = section(log, 'handBack');
    const later = section(log, 'later');
    const running = [lock.shared(batch.run), lock.exclusive(handBack.run), lock.shared(later.run)];
    await tick();
    expect(log).toEqual(['batch:start']);
    batch.finish();
    await tick();
    expect(log).toEqual(['batch:start', 'batch:end', 'handBack:start']);
    handBack.finish();
    await tick();
    expect(log.slice(-2)).toEqual(['handBack:end', 'later:start']);
    later.finish();
    await Promise.all(running);
  });

  it('releases the lock when a section throws', async () => {
    const lock = new IngestLock();
    await expect(lock.exclusive(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(lock.exclusive(async () => 'next')).resolves.toBe('next');
  });
});

describe('BackgroundWork', () => {
  it('settles only when all work, including work started meanwhile, has ended, and reports failures', async () => {
    const errors: unknown[] = [];
    const work = new BackgroundWork((err) => errors.push(err));
    let finished = 0;
    work.run(
      tick().then(() => {
        finished++;
        work.run(tick().then(() => finished++));
      }),
    );
    work.run(Promise.reject(new Error('lost')));
    await work.settle();
    expect(finished).toBe(2);
    expect(errors).toEqual([new Error('lost')]);
  });
});
