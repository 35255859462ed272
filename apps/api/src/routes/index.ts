import { Router } from 'express';
import type { AppDeps } from '../deps';
import { healthRouter } from './health';
import { authApiRouter } from './auth/session-routes';
import { tokensRouter } from './tokens';
import { projectsRouter } from './projects/router';
import { membersRouter } from './members/router';
import { invitationsRouter } from './members/invitations';
import { pendingInvitationsRouter } from './members/pending';
import { workflowsRouter } from './workflows/router';
import { appLinkApiRouter } from '../apps/router';
import { kbRouter } from './kb/router';
import { settingsRouter } from './settings/router';
import { filesRouter } from './files';
import { storageRouter } from './storage';
import { templatesRouter } from './templates';
import { workersRouter } from './workers/router';
import { timersRouter } from './timers/router';
import { eventsRouter } from './events/router';
import { openApiRouter } from './openapi/router';

/** Every router under /svc/api. Each resource adds its router here. */
export function apiRouter(deps: AppDeps): Router {
  const router = Router();
  router.use(healthRouter(deps));
  router.use(authApiRouter(deps));
  router.use(tokensRouter(deps));
  router.use(projectsRouter(deps));
  router.use(membersRouter(deps));
  router.use(pendingInvitationsRouter(deps));
  router.use(workflowsRouter(deps));
  router.use(appLinkApiRouter(deps));
  router.use(kbRouter(deps));
  router.use(settingsRouter(deps));
  router.use(filesRouter(deps));
  router.use(storageRouter(deps));
  router.use(templatesRouter(deps));
  router.use(workersRouter(deps));
  router.use(timersRouter(deps));
  router.use(invitationsRouter(deps));
  router.use(eventsRouter(deps));
  router.use(openApiRouter(deps));
  return router;
}
