import type { DeletedProject } from '@svc/protocol';
import { auditContextOf } from '../../audit/record';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { authorizeGlobal } from '../../policies/access';
import { presentProject } from '../../wire/project';

/** Administrators: the deleted projects, and bringing one back from its archive (issue 26). */
export function projectRestoreHandlers(deps: AppDeps): Handlers<'listDeletedProjects' | 'restoreProject'> {
  const { db } = deps;

  const listDeletedProjects: OperationHandler<'listDeletedProjects'> = async (req, res) => {
    authorizeGlobal(principalOf(req), 'project.restore');
    const rows = await db.project.findMany({
      where: { deleted_at: { not: null } },
      orderBy: [{ deleted_at: 'desc' }, { id: 'asc' }],
      include: { _count: { select: { workflows: true } } },
    });
    const body: DeletedProject[] = rows.map((row) => ({
      id: row.id,
      name: row.name,
      description: row.description,
      created_at: row.created_at.toISOString(),
      deleted_at: (row.deleted_at ?? row.updated_at).toISOString(),
      archive_path: row.archive_path,
      workflow_count: row._count.workflows,
    }));
    res.json(body);
  };

  const restoreProject: OperationHandler<'restoreProject'> = async (req, res, input) => {
    authorizeGlobal(principalOf(req), 'project.restore');
    const project = await deps.workflows.restoreProject(input.params.id, auditContextOf(req));
    res.json(presentProject(project, null));
  };

  return { listDeletedProjects, restoreProject };
}
