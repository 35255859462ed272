import type { AppDeps } from '../deps';
import type { OperationHandler, Handlers } from '../http/mount';

/**
 * `GET /svc/api/health`: public, for orchestrator and load-balancer probes; 503 when the database or the
 * storage does not answer. `replica` names the process that answered (its `REPLICA_ID`), so operators
 * and tests see which one a load balancer chose.
 */
export function healthHandlers(deps: AppDeps): Handlers<'getHealth'> {
  const getHealth: OperationHandler<'getHealth'> = async (_req, res) => {
    const db = await deps.db.$queryRawUnsafe('SELECT 1').then(
      () => 'ok' as const,
      () => 'unavailable' as const,
    );
    const storage = await deps.storage.health();
    const ok = db === 'ok' && storage === 'ok';
    res.status(ok ? 200 : 503).json({
      status: ok ? 'ok' : 'unavailable',
      version: deps.version,
      db,
      storage,
      storage_backend: deps.storage.backend,
      replica: deps.config.replicaId,
    });
  };
  return { getHealth };
}
