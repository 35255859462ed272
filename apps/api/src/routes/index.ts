import { Router } from 'express';
import type { AppDeps } from '../deps';
import { mountOperations } from '../http/mount';
import { rejectNulInPathIds } from '../http/path-ids';
import type { Authenticator } from '../auth/authenticate';
import type { DirectGets } from '../http/direct-gets';
import { appLinkHandlers } from '../apps/router';
import { healthHandlers } from './health';
import { sessionHandlers } from './auth/session-routes';
import { tokenHandlers } from './tokens';
import { projectHandlers } from './projects/router';
import { projectRestoreHandlers } from './projects/restore';
import { budgetHandlers } from './budgets/router';
import { memberHandlers } from './members/router';
import { invitationLinkHandlers } from './members/links';
import { invitationHandlers } from './members/invitations';
import { pendingInvitationHandlers } from './members/pending';
import { workflowHandlers } from './workflows/router';
import { workflowActionHandlers } from './workflows/actions';
import { pauseHandlers } from './workflows/pause';
import { historyHandlers } from './workflows/history';
import { workflowDetailHandlers } from './workflows/details';
import { reportHandlers } from './workflows/report';
import { rawLogHandlers } from './workflows/raw-log';
import { archiveHandlers } from './workflows/archive';
import { waitingHandlers } from './workflows/waiting';
import { kbHandlers } from './kb/router';
import { settingHandlers } from './settings/router';
import { fileHandlers } from './files';
import { storageHandlers } from './storage';
import { templateHandlers } from './templates';
import { workerHandlers } from './workers/router';
import { queueHandlers } from './workers/queue';
import { workerAdminHandlers } from './workers/admin';
import { timerHandlers } from './timers/router';
import { scheduleHandlers } from './schedules/router';
import { mcpServerHandlers } from './mcp-servers/router';
import { eventHandlers } from './events/router';
import { openApiHandlers } from './openapi/router';
import { hookHandlers } from './triggers/hook';
import { triggerHandlers } from './triggers/router';
import { webhookHandlers } from './webhooks/router';
import { secretHandlers } from './secrets/router';
import { repositoryHandlers } from './repositories/router';
import { forgeHandlers } from './forge/router';
import { notificationHandlers } from './notifications/router';
import { auditHandlers } from '../audit/routes';

/**
 * Every operation under /svc/api, mounted from the protocol's operations table: each resource gives its
 * handlers by operation id (http/mount.ts fails at start-up on an operation without one).
 */
export function apiRouter(deps: AppDeps, authenticate: Authenticator, direct?: DirectGets): Router {
  const router = Router();
  router.use(rejectNulInPathIds);
  mountOperations(
    router,
    '/svc/api',
    {
      ...healthHandlers(deps),
      ...sessionHandlers(deps),
      ...tokenHandlers(deps),
      ...projectHandlers(deps),
      ...projectRestoreHandlers(deps),
      ...memberHandlers(deps),
      ...invitationLinkHandlers(deps),
      ...pendingInvitationHandlers(deps),
      ...invitationHandlers(deps),
      ...workflowHandlers(deps),
      ...waitingHandlers(deps),
      ...workflowActionHandlers(deps),
      ...budgetHandlers(deps),
      ...pauseHandlers(deps),
      ...historyHandlers(deps),
      ...workflowDetailHandlers(deps),
      ...reportHandlers(deps),
      ...rawLogHandlers(deps),
      ...archiveHandlers(deps),
      ...appLinkHandlers(deps),
      ...kbHandlers(deps),
      ...settingHandlers(deps),
      ...fileHandlers(deps),
      ...storageHandlers(deps),
      ...templateHandlers(deps),
      ...workerHandlers(deps),
      ...queueHandlers(deps),
      ...workerAdminHandlers(deps),
      ...timerHandlers(deps),
      ...scheduleHandlers(deps),
      ...eventHandlers(deps),
      ...openApiHandlers(deps),
      ...hookHandlers(deps),
      ...triggerHandlers(deps),
      ...mcpServerHandlers(deps),
      ...secretHandlers(deps),
      ...repositoryHandlers(deps),
      ...forgeHandlers(deps),
      ...webhookHandlers(deps),
      ...notificationHandlers(deps),
      ...auditHandlers(deps),
    },
    { authenticate, direct },
  );
  return router;
}
