import type { Request, Response } from 'express';
import type { AppDeps } from '../../deps';
import type { Handlers, PrefixHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { notFound } from '../../domain/errors';
import { authorizeProject } from '../../policies/access';
import { guardUnreadBody, listPath, presentWrite, writeRequestBody } from '../files/operations';
import { pathFromUrl } from '../files/request-path';
import { serveFile } from '../files/serve-file';

const METHODS = { GET: 'storage.read', HEAD: 'storage.read', PUT: 'storage.write', DELETE: 'storage.write' } as const;

/**
 * Object storage of a project (CONTRACT section 3): `GET|PUT|DELETE /projects/{id}/storage/<path>`,
 * and `GET /projects/{id}/storage/<dir>/` (trailing slash, also the root) for a listing. Uploads are
 * streamed, limited to STORAGE_MAX_UPLOAD_BYTES while streaming, and put in place only when whole.
 */
export function storageHandlers(
  deps: AppDeps,
): Handlers<'readStorageObject' | 'writeStorageObject' | 'deleteStorageObject'> {
  const storage: PrefixHandler = {
    prefix: '/svc/api/projects/{id}/storage',
    handle: (req, res) => handleStorage(deps, req, res),
  };
  return { readStorageObject: storage, writeStorageObject: storage, deleteStorageObject: storage };
}

async function handleStorage(deps: AppDeps, req: Request, res: Response): Promise<void> {
  const action = METHODS[req.method as keyof typeof METHODS];
  if (!action) throw notFound('no such endpoint');
  await guardUnreadBody(req, res, async () => {
    const { project } = await authorizeProject(deps.db, principalOf(req), String(req.params.id), action);
    const area = deps.storage.projectStorage(project.id);
    const { path, trailingSlash } = pathFromUrl(req);
    switch (req.method) {
      case 'GET':
      case 'HEAD': {
        if (trailingSlash) return void res.json(await listPath(req, area, path));
        const target = await area.resolve(path);
        if (target.stat?.type === 'dir')
          throw notFound(`"${target.relative}" is a directory; list it as "${target.relative}/"`);
        return serveFile(req, res, area, target, { renderMarkdown: false, rawMarkdown: false });
      }
      case 'PUT': {
        // No hash here: it would cost as much CPU as the copy itself on multi-GB objects.
        const written = await writeRequestBody(req, area, path, trailingSlash, {
          maxBytes: deps.config.storage.maxUploadBytes,
          sha256: false,
        });
        return void res.status(written.created ? 201 : 200).json(presentWrite(written));
      }
      case 'DELETE': {
        await area.delete(await area.resolve(path));
        return void res.status(204).end();
      }
    }
  });
}
