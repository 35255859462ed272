// CPU time of the processes a dispatch target's work runs in: a process by pid (/proc, Linux), the
// PostgreSQL backends serving one database, Redis (its INFO). Milliseconds of user + system time.
import { readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** User + system CPU of a process so far, in ms (0 once it is gone). */
export function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * CPU of the PostgreSQL backends of database `name` over a phase: `start()` samples them, the returned
 * `stop()` sums what each backend alive at the end spent since (backends that exit in between are missed).
 */
export function backendCpu(admin, name) {
  const sample = async () => {
    const { rows } = await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name]);
    return new Map(rows.map(({ pid }) => [pid, processCpuMs(pid)]));
  };
  return {
    async start() {
      const before = await sample();
      return async () => {
        let total = 0;
        for (const [pid, ms] of await sample()) total += ms - (before.get(pid) ?? 0);
        return total;
      };
    },
  };
}

/** Redis's own CPU so far (INFO cpu), in ms. */
export async function redisCpuMs(redis) {
  const info = await redis.info('cpu');
  const field = (name) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_sys') + field('used_cpu_user')) * 1000;
}
