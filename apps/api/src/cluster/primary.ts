import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { backoffDelay } from '@svc/client';

/** A worker that served this long before it died is restarted at once; quicker deaths back off. */
const HEALTHY_UPTIME_MS = 10_000;
const RESTART_BACKOFF = { baseMs: 100, maxMs: 30_000, jitter: 0 };

/**
 * The primary of `API_PROCESSES=N`: forks N server processes that share the listening port (node:cluster
 * hands each new connection to one of them, round-robin) and serve exactly as a single server does; all
 * coordination between them goes through PostgreSQL, as between replicas on different hosts. A process
 * that dies is replaced (with backoff while replacements keep dying, e.g. while the database is down).
 * At start-up, before any process has listened, one that exits stops the whole server with its exit
 * code: bad settings would fail every restart the same way. Without a configured REPLICA_ID each
 * process makes its own (host, pid, random).
 */
export function runClusterPrimary(count: number, logger: Logger, replicaIdBase?: string): void {
  let stopping = false;
  const startedAt = new Map<Worker, number>();
  const listened = new Set<Worker>();
  let started = false;
  const crashesInARow = new Map<number, number>();
  let forks = 0;

  const fork = (slot: number) => {
    // Replica ids must differ between processes: a configured REPLICA_ID gets each fork's number.
    const worker = cluster.fork(replicaIdBase ? { REPLICA_ID: `${replicaIdBase}-${++forks}` } : {});
    startedAt.set(worker, Date.now());
    worker.once('listening', () => {
      listened.add(worker);
      started = true;
    });
    worker.once('exit', (code, signal) => {
      const uptime = Date.now() - (startedAt.get(worker) ?? 0);
      startedAt.delete(worker);
      if (stopping) return;
      if (!started) {
        logger.error({ pid: worker.process.pid, code, signal }, 'a server process exited before it listened');
        stop(typeof code === 'number' && code !== 0 ? code : 1);
        return;
      }
      const served = listened.delete(worker) && uptime >= HEALTHY_UPTIME_MS;
      const crashes = served ? 0 : (crashesInARow.get(slot) ?? 0) + 1;
      crashesInARow.set(slot, crashes);
      const delay = crashes === 0 ? 0 : backoffDelay(crashes - 1, RESTART_BACKOFF);
      logger.warn({ pid: worker.process.pid, code, signal, restartInMs: delay }, 'server process died; restarting it');
      setTimeout(() => stopping || fork(slot), delay);
    });
  };

  const stop = (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    const running = [...startedAt.keys()];
    if (running.length === 0) process.exit(exitCode);
    let left = running.length;
    for (const worker of running) {
      worker.once('exit', () => --left === 0 && process.exit(exitCode));
      worker.process.kill('SIGTERM');
    }
  };

  for (let slot = 0; slot < count; slot++) fork(slot);
  logger.info({ processes: count }, 'svc cluster primary started');
  process.once('SIGINT', () => stop(0));
  process.once('SIGTERM', () => stop(0));
}
