import { createBrowserRouter, redirect, type RouteObject } from 'react-router';
import type { ComponentType } from 'react';
import { RootLayout } from './RootLayout';
import { NotFoundRoute } from './NotFoundRoute';

/**
 * A route whose page is loaded with its own chunk when first visited (issue 29, finding 5; decision 0072):
 * the first load fetches the shell and the one page it opens, not every page of the app.
 */
const lazyPage =
  <M,>(load: () => Promise<M>, pick: (module: M) => ComponentType): RouteObject['lazy'] =>
  async () => ({ Component: pick(await load()) });

const admin = () => import('./AdminRoutes');
const workflowPage = () => import('./WorkflowRoute');

/**
 * The project page, and once it is loaded the run page's code in the background: "Start" opens a run,
 * whose page then shows without waiting for its chunk. A failed prefetch changes nothing: opening the page loads it.
 */
const projectPage = async () => {
  const page = await import('./ProjectRoute');
  workflowPage().catch(() => undefined);
  return page;
};

export function createRouter() {
  return createBrowserRouter([
    {
      path: '/',
      element: <RootLayout />,
      children: [
        {
          index: true,
          lazy: lazyPage(
            () => import('./HomeRoute'),
            (m) => m.HomeRoute,
          ),
        },
        { path: 'projects/:projectId', lazy: lazyPage(projectPage, (m) => m.ProjectRoute) },
        { path: 'projects/:projectId/workflows/:workflowId', lazy: lazyPage(workflowPage, (m) => m.WorkflowRoute) },
        {
          path: 'kb',
          lazy: lazyPage(
            () => import('./KbRoute'),
            (m) => m.KbRoute,
          ),
        },
        {
          path: 'settings',
          lazy: lazyPage(
            () => import('./SettingsRoute'),
            (m) => m.SettingsRoute,
          ),
        },
        {
          path: 'invite',
          lazy: lazyPage(
            () => import('./InviteRoute'),
            (m) => m.InviteRoute,
          ),
        },
        // The workers page first, redirected inside the navigation: a <Navigate> rendered by a lazily
        // loaded page redirected only once its effect ran, and the admin pages sometimes never showed.
        { path: 'admin', loader: () => redirect('/admin/workers') },
        { path: 'admin/workers', lazy: lazyPage(admin, (m) => m.WorkersRoute) },
        { path: 'admin/workers/:workerId', lazy: lazyPage(admin, (m) => m.WorkerDetailRoute) },
        { path: 'admin/tokens', lazy: lazyPage(admin, (m) => m.TokensRoute) },
        { path: 'admin/secrets', lazy: lazyPage(admin, (m) => m.InstanceSecretsRoute) },
        { path: 'admin/audit', lazy: lazyPage(admin, (m) => m.AuditRoute) },
        { path: 'admin/deleted-projects', lazy: lazyPage(admin, (m) => m.DeletedProjectsRoute) },
        { path: '*', element: <NotFoundRoute /> },
      ],
    },
  ]);
}
