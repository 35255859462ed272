import { Router } from 'express';
import type { AppDeps } from '../deps';
import { healthRouter } from './health';
import { authApiRouter } from './auth/session-routes';
import { tokensRouter } from './tokens';

/** Every router under /svc/api. Each resource adds its router here. */
export function apiRouter(deps: AppDeps): Router {
  const router = Router();
  router.use(healthRouter(deps));
  router.use(authApiRouter(deps));
  router.use(tokensRouter(deps));
  return router;
}
