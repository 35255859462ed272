import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { authorizeWorkflow } from '../../policies/access';
import { archiveFileName } from '../../services/workspace-archive';

/**
 * `GET /workflows/{id}/archive`: the workspace as a gzipped tar, streamed (bounded memory whatever its
 * size). Read with the same right as the files it holds. The status is sent before the archive is
 * complete, so a failure on the way cuts the connection (the client sees a truncated gzip, never a
 * silently short archive).
 */
export function archiveHandlers(deps: AppDeps): Handlers<'getArchive'> {
  const getArchive: OperationHandler<'getArchive'> = async (req, res, input) => {
    const { workflow } = await authorizeWorkflow(deps.db, principalOf(req), input.params.id, 'files.read');
    const tar = await deps.storage.workspace(workflow.project_id, workflow.id).tar(req.log);
    res.status(200).set({
      'Content-Type': 'application/gzip',
      'Content-Disposition': `attachment; filename="${archiveFileName(workflow.id)}"`,
      'Cache-Control': 'no-store',
    });
    try {
      await pipeline(tar, createGzip(), res);
    } catch (err) {
      if (!res.destroyed) req.log.warn({ err }, 'workspace archive failed');
      res.destroy();
    }
  };
  return { getArchive };
}
