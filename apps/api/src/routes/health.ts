import type { AppDeps } from '../deps';
import type { OperationHandler, Handlers } from '../http/mount';

/**
 * `GET /svc/api/health`: public, for orchestrator and load-balancer probes; 503 when the database or the
 * storage does not answer. `replica` names the process that answered (its `REPLICA_ID`), so operators
 * and tests see which one a load balancer chose. `GET /svc/api/ready`: the readiness probe, 503 from the
 * moment the process drains for a shutdown (decision 0061).
 */
export function healthHandlers(deps: AppDeps): Handlers<'getHealth' | 'getReadiness'> {
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
  // Readiness is not liveness: it reads no database (every replica shares it), only whether this one drains.
  const getReadiness: OperationHandler<'getReadiness'> = async (_req, res) => {
    const draining = deps.serving.draining;
    res.status(draining ? 503 : 200).json({ status: draining ? 'draining' : 'ready', replica: deps.config.replicaId });
  };
  return { getHealth, getReadiness };
}
