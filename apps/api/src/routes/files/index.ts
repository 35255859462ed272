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

const WRITES = new Set(['PUT', 'POST', 'DELETE']);
const READS = new Set(['GET', 'HEAD']);

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

async function handleFiles(deps: AppDeps, req: Request, res: Response): Promise<void> {
  const writes = WRITES.has(req.method);
  if (!writes && !READS.has(req.method)) throw notFound('no such endpoint');
  await guardUnreadBody(req, res, async () => {
    const { workflow } = await authorizeWorkflow(
      deps.db,
      principalOf(req),
      String(req.params.id),
      writes ? 'files.write' : 'files.read',
    );
    const area = deps.storage.workspace(workflow.project_id, workflow.id);
    const { path, trailingSlash } = pathFromUrl(req);
    const maxBytes = deps.config.storage.maxUploadBytes;
    switch (req.method) {
      case 'GET':
      case 'HEAD': {
        if (path === '') return void res.json(await listPath(req, area, queryValue(req, 'path')));
        const target = await area.resolve(path);
        if (target.stat?.type === 'dir') return void res.json(await listPath(req, area, target.relative));
        const raw = 'raw' in (req.query as object);
        return serveFile(req, res, area, target, { renderMarkdown: !raw && deps.markdown, rawMarkdown: raw });
      }
      case 'PUT': {
        const written = await writeRequestBody(req, area, path, trailingSlash, { maxBytes, sha256: true });
        await announce(deps, req, workflow, { path: written.path, size: written.size, sha256: written.sha256 });
        return void res.status(written.created ? 201 : 200).json(presentWrite(written));
      }
      case 'POST': {
        const written = await writeMultipartBody(req, area, path || queryValue(req, 'path'), maxBytes);
        for (const file of written)
          await announce(deps, req, workflow, { path: file.path, size: file.size, sha256: file.sha256 });
        return void res.status(201).json(written.map(presentWrite));
      }
      case 'DELETE': {
        const target = await area.resolve(path);
        await area.delete(target);
        await announce(deps, req, workflow, { path: target.relative, size: 0, deleted: true });
        return void res.status(204).end();
      }
    }
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
