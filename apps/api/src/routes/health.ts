import { Router } from 'express';
import type { AppDeps } from '../deps';

/**
 * `GET /svc/api/health`: public, for orchestrator and load-balancer probes; 503 when the database does
 * not answer. `replica` names the process that answered
 * (its `REPLICA_ID`), so operators and tests see which one a load balancer chose.
 */
export function healthRouter(deps: AppDeps): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const db = await deps.db.$queryRawUnsafe('SELECT 1').then(
      () => 'ok' as const,
      () => 'unavailable' as const,
    );
    res
      .status(db === 'ok' ? 200 : 503)
      .json({ status: db === 'ok' ? 'ok' : 'unavailable', version: deps.version, db, replica: deps.config.replicaId });
  });
  return router;
}
