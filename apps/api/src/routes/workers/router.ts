import { Router } from 'express';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth } from '../../auth/authenticate';
import { authorizeGlobal } from '../../policies/access';
import { listWorkers } from '../../dispatch/worker-list';

/** `GET /workers`: every registered worker with its capacity, what it holds now and whether it is online. */
export function workersRouter(deps: AppDeps): Router {
  const router = Router();
  router.get('/workers', requireAuth, async (req, res) => {
    authorizeGlobal(principalOf(req), 'workers.read');
    res.json(await listWorkers(deps.db));
  });
  return router;
}
