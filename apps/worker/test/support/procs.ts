import { readdirSync, readFileSync } from 'node:fs';

/** Running (a zombie waiting for a reaper counts as dead). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Host pids of the live processes whose command line is exactly `argv`. A sandboxed command only
 * knows its pid inside its own pid namespace, so tests find it from the host by a unique argument
 * (e.g. `sleep 300.417`).
 */
export function hostPidsOf(argv: readonly string[]): number[] {
  const wanted = `${argv.join('\0')}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') === wanted && isAlive(Number(entry))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** `sleep` for a unique number of seconds, findable with hostPidsOf(['sleep', seconds]). */
export function uniqueSleep(baseSeconds: number): string {
  return `${baseSeconds}.${String(process.pid).padStart(7, '0')}${Math.floor(Math.random() * 1e6)}`;
}
