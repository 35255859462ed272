import type { ChildProcess } from 'node:child_process';
import type { CommandLifecycle } from './run-command';

/**
 * Runs inside `unshare --user --map-root-user --net` (user and network namespaces of its own, the
 * worker's uid as their root): says it is there on fd 3, then waits for the worker's go byte on fd
 * 4 and only then execs bwrap, without those fds. A worker that dies first closes fd 4: nothing runs.
 * Setting the namespace up from outside as its root keeps `ip` its capabilities, for a worker of any
 * uid; the command inside bwrap's nested user namespace has none over it (it cannot drop a route).
 */
export const GATE_SCRIPT = 'printf r >&3 && IFS= read -r -n 1 _ <&4 && exec "$@" 3>&- 4<&-';

export type Release = () => Promise<void> | void;

/**
 * The lifecycle of a gated sandbox: `setup(pid)` prepares the namespaces of the waiting process
 * (registering how to undo each step as it goes), then the command is let go. Undone in reverse
 * order after the command ends, or after a setup that failed half-way. A command that ends (killed,
 * timed out, cancelled) while its setup is still running is released at once; what the setup registers
 * after that (the SVC_URL relay's socket, slirp4netns) is undone when the setup returns, not leaked.
 */
export function gatedLifecycle(
  setup: (pid: number, onRelease: (release: Release) => void) => Promise<void>,
  releases: Release[] = [],
): CommandLifecycle {
  let released = false;
  const onRelease = (release: Release): void => void releases.push(release);
  const releaseAll = async (): Promise<void> => {
    for (const release of releases.splice(0).reverse()) {
      try {
        await release();
      } catch {
        // best effort: the rest still gets undone
      }
    }
  };
  return {
    extraPipes: 2,
    async start(child: ChildProcess): Promise<void> {
      const [ready, go] = [child.stdio[3], child.stdio[4]];
      if (!child.pid || !ready || !go) throw new Error('the sandbox did not start');
      const there = await new Promise<boolean>((resolve) => {
        ready.once('data', () => resolve(true));
        ready.once('close', () => resolve(false));
        ready.once('error', () => resolve(false));
      });
      if (!there) throw new Error('the sandbox ended before it was set up (user or network namespace refused?)');
      try {
        await setup(child.pid, onRelease);
      } finally {
        if (released) await releaseAll();
      }
      if (released) throw new Error('the command ended while its sandbox was being set up');
      (go as NodeJS.WritableStream).write('g');
    },
    async release(): Promise<void> {
      released = true;
      await releaseAll();
    },
  };
}
