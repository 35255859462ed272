import type { AppDeps } from '../deps';
import type { OperationHandler, Handlers } from '../http/mount';
import { diskState } from '../services/disk-space';

/**
 * `GET /svc/api/health`: public, for orchestrator and load-balancer probes; 503 when the database or the
 * storage does not answer. A full disk under DATA_DIR is `degraded` with 200: reads still work, writes
 * answer 503 until space is freed, and neither a restart nor another replica (they share the disk)
 * would help. `replica` names the process that answered (its `REPLICA_ID`), so operators and tests see
 * which one a load balancer chose. `GET /svc/api/ready`: the readiness probe, 503 from the moment the
 * process drains for a shutdown (decision 0061), and, as liveness, when the database or the storage does
 * not answer.
 */
export function healthHandlers(deps: AppDeps): Handlers<'getHealth' | 'getReadiness'> {
  const probe = async () => {
    const [db, storage] = await Promise.all([
      deps.db.$queryRawUnsafe('SELECT 1').then(
        () => 'ok' as const,
        () => 'unavailable' as const,
      ),
      deps.storage.health(),
    ]);
    return { ok: db === 'ok' && storage === 'ok', db, storage };
  };
  const getHealth: OperationHandler<'getHealth'> = async (_req, res) => {
    const [{ ok, db, storage }, disk] = await Promise.all([
      probe(),
      diskState(deps.config.dataDir, deps.config.dataDirMinFreeBytes),
    ]);
    res.status(ok ? 200 : 503).json({
      status: !ok ? 'unavailable' : disk === 'ok' ? 'ok' : 'degraded',
      version: deps.version,
      db,
      storage,
      disk,
      storage_backend: deps.storage.backend,
      replica: deps.config.replicaId,
    });
  };
  // Liveness's probes, and first whether this process drains: then it answers at once, without the database.
  const getReadiness: OperationHandler<'getReadiness'> = async (_req, res) => {
    const status = deps.serving.draining ? 'draining' : (await probe()).ok ? 'ready' : 'unavailable';
    res.status(status === 'ready' ? 200 : 503).json({ status, replica: deps.config.replicaId });
  };
  return { getHealth, getReadiness };
}
