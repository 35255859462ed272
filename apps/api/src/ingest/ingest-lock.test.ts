import { BackgroundWork } from '../lib/background-work';
import { IngestLock } from './ingest-lock';

/**
 * A section that records when it starts and ends, and ends when told to. `started` resolves when it
 * has entered the lock. Admission is decided when a section asks for the lock and when one leaves it,
 * so once a section has started, what the lock admitted with it has been decided too.
 */
function section(log: string[], name: string) {
  let finish!: () => void;
  let entered!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const started = new Promise<void>((resolve) => (entered = resolve));
  return {
    run: async () => {
      log.push(`${name}:start`);
      entered();
      await done;
      log.push(`${name}:end`);
    },
    started,
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
    // Both are inside before either ends.
    await Promise.all([a.started, b.started]);
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
    await batch.started;
    expect(log).toEqual(['batch:start']);
    batch.finish();
    await handBack.started;
    expect(log).toEqual(['batch:start', 'batch:end', 'handBack:start']);
    handBack.finish();
    await later.started;
    expect(log).toEqual(['batch:start', 'batch:end', 'handBack:start', 'handBack:end', 'later:start']);
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
  /** Work that ends a moment later (it takes time, nothing waits on the time). */
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

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
