import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { gatedLifecycle, type Release } from './sandbox-gate';

/** A waiting sandbox as the gate sees it: its pid, the ready pipe (fd 3) and the go pipe (fd 4). */
function waitingSandbox() {
  const ready = new PassThrough();
  const go = new PassThrough();
  const child = { pid: 4242, stdio: [null, null, null, ready, go] } as unknown as ChildProcess;
  ready.write('r');
  return { child, go };
}

/** A setup that registers `first`, then waits until `proceed` is called before registering `late`. */
function pausedSetup(first: Release, late: Release) {
  let proceed!: () => void;
  const paused = new Promise<void>((resolve) => (proceed = resolve));
  let reachedPause!: () => void;
  const atPause = new Promise<void>((resolve) => (reachedPause = resolve));
  const setup = async (_pid: number, onRelease: (release: Release) => void) => {
    onRelease(first);
    reachedPause();
    await paused;
    onRelease(late);
  };
  return { setup, proceed, atPause };
}

describe('gatedLifecycle', () => {
  it('lets the command go after its setup and undoes the setup in reverse order on release', async () => {
    const undone: string[] = [];
    const lifecycle = gatedLifecycle(async (_pid, onRelease) => {
      onRelease(() => void undone.push('egress'));
      onRelease(() => void undone.push('relay'));
    });
    const { child, go } = waitingSandbox();
    await lifecycle.start(child);
    expect(go.read()?.toString()).toBe('g');
    await lifecycle.release();
    expect(undone).toEqual(['relay', 'egress']);
  });

  it('undoes what a setup registers after the command was released, and never lets it go', async () => {
    const undone: string[] = [];
    const { setup, proceed, atPause } = pausedSetup(
      () => void undone.push('egress'),
      () => void undone.push('relay'),
    );
    const lifecycle = gatedLifecycle(setup);
    const { child, go } = waitingSandbox();
    const starting = lifecycle.start(child);
    await atPause;
    await lifecycle.release(); // the command ended (killed, timed out) during its setup
    expect(undone).toEqual(['egress']);
    proceed();
    await expect(starting).rejects.toThrow('ended while its sandbox was being set up');
    expect(undone).toEqual(['egress', 'relay']);
    expect(go.read()).toBeNull();
  });
});
