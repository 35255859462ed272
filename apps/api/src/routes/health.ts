import { Router } from 'express';
import type { AppDeps } from '../deps';

/** `GET /svc/api/health`: public, for orchestrator probes; 503 when the database or the storage does not answer. */
export function healthRouter(deps: AppDeps): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
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
    });
  });
  return router;
}
