import { extname } from 'node:path';
import type { Request, Response } from 'express';
import type { FileChangedEventData } from '@svc/protocol';
import type { Workflow } from '@svc/db';
import type { AppDeps } from '../../deps';
import type { Handlers, PrefixHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { notFound } from '../../domain/errors';
import { authorizeWorkflow } from '../../policies/access';
import { guardUnreadBody, listPath, presentWrite, writeMultipartBody, writeRequestBody } from './operations';
import { pathFromUrl, queryValue } from './request-path';
import { serveFile } from './serve-file';
import type { StorageArea } from '../../services/storage';

/**
 * Files of a workflow workspace (CONTRACT section 3): `GET /workflows/{id}/files?path=&recursive=`,
 * `GET|PUT|DELETE /workflows/{id}/files/<path>`, `POST /workflows/{id}/files?path=<dir>` (multipart).
 * Mounted with `use` so the handler sees the raw rest of the URL (see request-path.ts).
 */
export function fileHandlers(
  deps: AppDeps,
): Handlers<'listFiles' | 'uploadFiles' | 'readFile' | 'writeFile' | 'deleteFile'> {
  const files: PrefixHandler = {
    prefix: '/svc/api/workflows/{id}/files',
    handle: (req, res) => handleFiles(deps, req, res),
  };
  return { listFiles: files, uploadFiles: files, readFile: files, writeFile: files, deleteFile: files };
}

/** One authorized request on a workspace's files, its path taken from the URL. */
interface FilesCall {
  deps: AppDeps;
  req: Request;
  res: Response;
  workflow: Workflow;
  area: StorageArea;
  path: string;
  trailingSlash: boolean;
}

/** A directory lists its entries (the root: `?path=`), a file is served. */
async function read({ deps, req, res, workflow, area, path }: FilesCall): Promise<void> {
  if (path === '') return void res.json(await listPath(req, area, queryValue(req, 'path')));
  const target = await area.resolve(path);
  if (target.stat?.type === 'dir') return void res.json(await listPath(req, area, target.relative));
  const raw = 'raw' in (req.query as object);
  // What the app shows (its `?raw` text preview, a markdown page) masks the run's secrets; a download does not.
  const shown = raw || extname(target.relative).toLowerCase() === '.md';
  const masker = shown ? await deps.secrets.runs.maskerOf(workflow.id) : null;
  return serveFile(req, res, area, target, { renderMarkdown: !raw && deps.markdown, rawMarkdown: raw, masker });
}

async function write({ deps, req, res, workflow, area, path, trailingSlash }: FilesCall): Promise<void> {
  const maxBytes = deps.config.storage.maxUploadBytes;
  const written = await writeRequestBody(req, area, path, trailingSlash, { maxBytes, sha256: true });
  await announce(deps, req, workflow, { path: written.path, size: written.size, sha256: written.sha256 });
  res.status(written.created ? 201 : 200).json(presentWrite(written));
}

/** Multipart upload into the directory of the URL, or of `?path=`. */
async function upload({ deps, req, res, workflow, area, path }: FilesCall): Promise<void> {
  const maxBytes = deps.config.storage.maxUploadBytes;
  const written = await writeMultipartBody(req, area, path || queryValue(req, 'path'), maxBytes);
  for (const file of written)
    await announce(deps, req, workflow, { path: file.path, size: file.size, sha256: file.sha256 });
  res.status(201).json(written.map(presentWrite));
}

async function remove({ deps, req, res, workflow, area, path }: FilesCall): Promise<void> {
  const target = await area.resolve(path);
  await area.delete(target);
  await announce(deps, req, workflow, { path: target.relative, size: 0, deleted: true });
  res.status(204).end();
}

/** Each method's handler and the action it is authorized with. */
const METHODS: ReadonlyMap<
  string,
  { action: 'files.read' | 'files.write'; handle: (call: FilesCall) => Promise<void> }
> = new Map([
  ['GET', { action: 'files.read', handle: read }],
  ['HEAD', { action: 'files.read', handle: read }],
  ['PUT', { action: 'files.write', handle: write }],
  ['POST', { action: 'files.write', handle: upload }],
  ['DELETE', { action: 'files.write', handle: remove }],
]);

async function handleFiles(deps: AppDeps, req: Request, res: Response): Promise<void> {
  const method = METHODS.get(req.method);
  if (!method) throw notFound('no such endpoint');
  await guardUnreadBody(req, res, async () => {
    const { workflow } = await authorizeWorkflow(deps.db, principalOf(req), String(req.params.id), method.action);
    const area = deps.storage.workspace(workflow.project_id, workflow.id);
    const { path, trailingSlash } = pathFromUrl(req);
    await method.handle({ deps, req, res, workflow, area, path, trailingSlash });
  });
}

/** The write already happened; a failure to store its event is logged, not turned into an error answer. */
async function announce(deps: AppDeps, req: Request, workflow: Workflow, data: FileChangedEventData): Promise<void> {
  try {
    await deps.events.append(workflow, [{ type: 'file_changed', data }]);
  } catch (error) {
    req.log.error({ err: error, path: data.path }, 'file_changed event could not be stored');
  }
}
