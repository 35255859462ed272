// CPU time of the processes a dispatch target's work runs in: a process by pid (/proc, Linux), the
// PostgreSQL backends serving one database, Redis (its INFO). Milliseconds of user + system time.
import { cpuMsOf } from '../lib/server-process.mjs';

/**
 * CPU of the PostgreSQL backends of database `name` over a phase: `start()` samples them, the returned
 * `stop()` sums what each backend alive at the end spent since (backends that exit in between are missed).
 */
export function backendCpu(admin, name) {
  const sample = async () => {
    const { rows } = await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name]);
    return new Map(rows.map(({ pid }) => [pid, cpuMsOf(pid)]));
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
