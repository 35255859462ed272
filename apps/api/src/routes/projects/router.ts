import { auditContextOf, recordAudit } from '../../audit/record';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers, JoiningHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { forbidden, notFound } from '../../domain/errors';
import { authorizeGlobal, authorizeProject } from '../../policies/access';
import { presentProject } from '../../wire/project';
import { listableProjects } from '../../reads/access';
import { sendJson } from '../../http/encoded-json';

/** `/projects` and `/projects/{id}`: list, create, read, rename, soft delete. */
export function projectHandlers(
  deps: AppDeps,
): Handlers<'listProjects' | 'createProject' | 'getProject' | 'updateProject' | 'deleteProject'> {
  const { db } = deps;

  const listProjects: JoiningHandler<'listProjects'> = {
    joinsCaller: true,
    handle: async (req, res) => {
      sendJson(req, res, await listableProjects(deps, req));
    },
  };

  const createProject: OperationHandler<'createProject'> = async (req, res, input) => {
    const principal = principalOf(req);
    authorizeGlobal(principal, 'project.create');
    if (principal.kind !== 'user') throw forbidden('only a person creates projects');
    const body = input.body();
    const userId = principal.user.id;
    const project = await db.$transaction(async (tx) => {
      const created = await tx.project.create({
        data: {
          name: body.name,
          description: body.description ?? '',
          created_by: userId,
          members: { create: { user_id: userId, role: 'owner' } },
        },
      });
      await recordAudit(tx, auditContextOf(req), {
        action: 'project.created',
        target: { type: 'project', id: created.id },
        projectId: created.id,
        detail: { name: created.name },
      });
      return created;
    });
    res.status(201).location(`/svc/api/projects/${project.id}`).json(presentProject(project, 'owner'));
  };

  const getProject: OperationHandler<'getProject'> = async (req, res, input) => {
    const { project, role } = await authorizeProject(db, principalOf(req), input.params.id, 'project.read');
    res.json(presentProject(project, role));
  };

  const updateProject: OperationHandler<'updateProject'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { project, role } = await authorizeProject(db, principal, input.params.id, 'project.update');
    const body = input.body();
    // The run limit is the owners' (decision 0037); members rename and describe.
    const owner = role === 'owner' || (principal.kind === 'user' && principal.isAdmin);
    if (body.max_running !== undefined && !owner) throw forbidden('only an owner sets max_running');
    const { count } = await db.project.updateMany({ where: { id: project.id, deleted_at: null }, data: body });
    const updated = count ? await db.project.findUnique({ where: { id: project.id } }) : null;
    if (!updated) throw notFound('project not found');
    deps.events.publishProject(project.id, { change: 'updated' });
    if (body.max_running !== undefined) await deps.workflows.queueMayMove(project.id);
    res.json(presentProject(updated, role));
  };

  const deleteProject: OperationHandler<'deleteProject'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'project.delete');
    await deps.workflows.removeProject(project, auditContextOf(req));
    res.status(204).end();
  };

  return { listProjects, createProject, getProject, updateProject, deleteProject };
}
