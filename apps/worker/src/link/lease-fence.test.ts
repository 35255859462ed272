import { AbortedError } from '../util/aborted';
import { LeaseFence } from './lease-fence';

/** A fence on a clock the test moves; its timer is not relied on (check() is called instead). */
function fenceOn(runs: string[], unacked = new Set<string>()) {
  let now = 1_000_000;
  const lost: string[] = [];
  const fence = new LeaseFence({
    runs: () => runs,
    unacknowledged: (id) => unacked.has(id),
    onLost: (id) => lost.push(id),
    now: () => now,
  });
  return { fence, lost, unacked, advance: (ms: number) => (now += ms), at: () => now };
}

describe('LeaseFence', () => {
  it('fences the runs once the lease is up, counted from when the last answered message was sent', () => {
    const { fence, advance, at } = fenceOn(['a', 'b']);
    fence.registered(30, at());
    advance(10_000);
    const pingSent = at();
    advance(2_000);
    fence.contact(pingSent); // the pong came 2 s later: the lease counts from the ping
    advance(30_000 - 2_000);
    expect(fence.mayStart('a')).toBe(true);
    advance(1);
    expect(fence.mayStart('a')).toBe(false);
    expect(fence.check()).toBe(true);
    fence.stop();
  });

  it('keeps a fenced run fenced after the reconnect until the server says whose it is', async () => {
    const { fence, advance, at, lost } = fenceOn(['kept', 'taken']);
    fence.registered(5, at());
    advance(5_001);
    expect(fence.check()).toBe(true);
    fence.disconnected();
    fence.registered(5, at());
    expect(fence.mayStart('kept')).toBe(false);
    const upload = fence.beforeUpload('kept', new AbortController().signal);
    fence.holding(['kept']);
    await upload;
    expect(fence.mayStart('kept')).toBe(true);
    expect(lost).toEqual(['taken']);
    fence.stop();
  });

  it('never fences by the lease when the server did not tell it (an older server)', () => {
    const { fence, advance, at } = fenceOn(['a']);
    fence.registered(undefined, at());
    advance(10 * 3_600_000);
    expect(fence.mayStart('a')).toBe(true);
    fence.stop();
  });

  it('with a lease of 0 fences the runs as soon as the connection is gone', () => {
    const { fence, at } = fenceOn(['a']);
    fence.registered(0, at());
    expect(fence.mayStart('a')).toBe(true);
    fence.disconnected();
    expect(fence.mayStart('a')).toBe(false);
    fence.registered(0, at());
    fence.holding(['a']);
    expect(fence.mayStart('a')).toBe(true);
  });

  it('holds a command back until its run has nothing unacknowledged, and lets go on abort', async () => {
    const { fence, at, unacked } = fenceOn(['a'], new Set(['a']));
    fence.registered(60, at());
    const started = fence.beforeCommand('a', new AbortController().signal);
    let done = false;
    const settled = started.then(() => (done = true));
    fence.notify();
    await Promise.resolve();
    expect(done).toBe(false);
    unacked.delete('a');
    fence.notify();
    await settled;
    expect(done).toBe(true);

    unacked.add('a');
    const abort = new AbortController();
    const waiting = fence.beforeCommand('a', abort.signal);
    abort.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortedError);
    fence.stop();
  });
});
