import { createBrowserRouter } from 'react-router';
import { RootLayout } from './RootLayout';
import { HomeRoute } from './HomeRoute';
import { ProjectRoute } from './ProjectRoute';
import { WorkflowRoute } from './WorkflowRoute';
import { KbRoute } from './KbRoute';
import { SettingsRoute } from './SettingsRoute';
import { NotFoundRoute } from './NotFoundRoute';
import { InviteRoute } from './InviteRoute';
import {
  AdminIndexRoute,
  AuditRoute,
  DeletedProjectsRoute,
  InstanceSecretsRoute,
  TokensRoute,
  WorkersRoute,
} from './AdminRoutes';

export function createRouter() {
  return createBrowserRouter([
    {
      path: '/',
      element: <RootLayout />,
      children: [
        { index: true, element: <HomeRoute /> },
        { path: 'projects/:projectId', element: <ProjectRoute /> },
        { path: 'projects/:projectId/workflows/:workflowId', element: <WorkflowRoute /> },
        { path: 'kb', element: <KbRoute /> },
        { path: 'settings', element: <SettingsRoute /> },
        { path: 'invite', element: <InviteRoute /> },
        { path: 'admin', element: <AdminIndexRoute /> },
        { path: 'admin/workers', element: <WorkersRoute /> },
        { path: 'admin/tokens', element: <TokensRoute /> },
        { path: 'admin/secrets', element: <InstanceSecretsRoute /> },
        { path: 'admin/audit', element: <AuditRoute /> },
        { path: 'admin/deleted-projects', element: <DeletedProjectsRoute /> },
        { path: '*', element: <NotFoundRoute /> },
      ],
    },
  ]);
}
