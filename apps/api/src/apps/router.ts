import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import type { Handlers } from '../http/mount';
import { principalOf } from '../auth/authenticate';
import { notFound } from '../domain/errors';
import { authorizeWorkflow } from '../policies/access';
import { pathFromUrl } from '../routes/files/request-path';
import { serveFile } from '../routes/files/serve-file';
import { presentWorkflowOf } from '../reads/views';
import { workflowWorkspaceDir } from '../services/workspace-paths';
import { APP_KEY_PATTERN, rotateAppKey } from './app-link';
import { appFolderOf, assertServable } from './app-folder';

const READS = new Set(['GET', 'HEAD']);

/**
 * `/svc/apps/<app_key>/<path>`: a workflow's workspace as a website, for whoever holds the link. Mounted
 * before the cross-site guard and authentication: no session is needed, and one sent along (a top-level
 * navigation from the web app carries the Lax cookie) is never looked at. The files are served with the
 * user-content headers (CSP sandbox without allow-same-origin: an opaque origin that can neither read
 * the session cookie nor call the API as the user) and `Referrer-Policy: no-referrer`, so the key does
 * not leak to the sites the app links to. Paths go through the workspace area's resolver (traversal,
 * NUL, encoded forms: 400 invalid_path; symlinks out: refused there too). Only the app's folder is
 * served, and no dot name in it (`.env`, `.git`): app-folder.ts.
 */
export function builtAppHandlers(deps: AppDeps): Handlers<'serveBuiltApp'> {
  return {
    serveBuiltApp: { prefix: '/svc/apps/{app_key}', handle: (req: Request, res: Response) => serveApp(deps, req, res) },
  };
}

async function serveApp(deps: AppDeps, req: Request, res: Response): Promise<void> {
  if (!READS.has(req.method)) throw notFound('no such endpoint');
  const workflow = await appWorkflow(deps, String(req.params.app_key));
  if (!workflow) throw notFound('no app at this address');
  const area = deps.storage.workspace(workflow.project_id, workflow.id);
  const folder = appFolderOf(workflow.app_url);
  const onDisk = workspaceOnDisk(deps, workflow);
  const { path, trailingSlash } = pathFromUrl(req);
  let target = await area.resolve(path);
  // The link itself opens the app's folder when the app lives below the workspace root.
  if (target.relative === '' && folder.length > 0) return redirectToFolder(req, res, folder);
  await assertServable(target, folder, onDisk);
  if (target.stat?.type === 'dir') {
    // `/svc/apps/<key>` and `…/dir`: the page's relative links resolve against the directory
    if (!trailingSlash || !req.originalUrl.split('?')[0]!.endsWith('/')) return redirectToDirectory(req, res);
    target = await area.resolve(target.relative === '' ? 'index.html' : `${target.relative}/index.html`);
    await assertServable(target, folder, onDisk);
  }
  res.set('Referrer-Policy', 'no-referrer');
  await serveFile(req, res, area, target, { renderMarkdown: false, rawMarkdown: false });
}

/** The live workflow whose app has this key; a key not of the pattern is never looked up. */
async function appWorkflow(deps: AppDeps, key: string) {
  if (!APP_KEY_PATTERN.test(key)) return null;
  return deps.db.workflow.findFirst({
    where: { app_key: key, deleted_at: null, project: { deleted_at: null } },
    select: { id: true, project_id: true, app_url: true },
  });
}

/** The workspace directory on this machine (local storage only), which symlinks must not leave. */
function workspaceOnDisk(deps: AppDeps, workflow: { id: string; project_id: string }): string | null {
  if (deps.storage.backend !== 'local') return null;
  return workflowWorkspaceDir(deps.config.dataDir, workflow.project_id, workflow.id);
}

function redirectToDirectory(req: Request, res: Response): void {
  const [path, ...query] = req.originalUrl.split('?');
  res.set('Referrer-Policy', 'no-referrer');
  res.redirect(301, `${path}/${query.length ? `?${query.join('?')}` : ''}`);
}

/** `/svc/apps/<key>/` to `/svc/apps/<key>/<folder>/`; 302: the folder follows the latest report. */
function redirectToFolder(req: Request, res: Response, folder: readonly string[]): void {
  const [path, ...query] = req.originalUrl.split('?');
  const base = path!.endsWith('/') ? path : `${path}/`;
  res.set('Referrer-Policy', 'no-referrer');
  res.redirect(302, `${base}${folder.map(encodeURIComponent).join('/')}/${query.length ? `?${query.join('?')}` : ''}`);
}

/** `POST /workflows/{id}/app-link/rotate` (members): a new key; the old link is dead at once. */
export function appLinkHandlers(deps: AppDeps): Handlers<'rotateAppLink'> {
  return {
    rotateAppLink: async (req, res, input) => {
      const { workflow } = await authorizeWorkflow(deps.db, principalOf(req), input.params.id, 'workflow.control');
      res.json(await presentWorkflowOf(deps.reads, await rotateAppKey(deps.db, workflow.id)));
    },
  };
}
