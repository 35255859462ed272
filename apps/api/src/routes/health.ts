import { Router } from 'express';
import type { AppDeps } from '../deps';

/** `GET /svc/api/health`: public, for orchestrator probes; 503 when the database does not answer. */
export function healthRouter(deps: AppDeps): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const db = await deps.db.$queryRawUnsafe('SELECT 1').then(
      () => 'ok' as const,
      () => 'unavailable' as const,
    );
    res.status(db === 'ok' ? 200 : 503).json({ status: db === 'ok' ? 'ok' : 'unavailable', version: deps.version, db });
  });
  return router;
}
