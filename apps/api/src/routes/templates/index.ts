import { type UseTemplateResponse } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { notFound } from '../../domain/errors';
import { authorizeGlobal, authorizeWorkflow } from '../../policies/access';

/**
 * `GET /templates` -> `[{name, description}]`, one per remote branch of the template repository, and
 * `POST /workflows/{id}/template` `{name}`: copies that branch's files into an existing workspace.
 */
export function templateHandlers(deps: AppDeps): Handlers<'listTemplates' | 'useTemplate'> {
  const listTemplates: OperationHandler<'listTemplates'> = async (req, res) => {
    authorizeGlobal(principalOf(req), 'templates.read');
    res.json(await deps.templates.list());
  };
  const useTemplate: OperationHandler<'useTemplate'> = async (req, res, input) => {
    const { workflow } = await authorizeWorkflow(deps.db, principalOf(req), input.params.id, 'files.write');
    const { name } = input.body();
    if (!(await deps.templates.list()).some((t) => t.name === name))
      throw notFound(`no template named ${JSON.stringify(name)}`);
    const workspace = deps.storage.workspace(workflow.project_id, workflow.id);
    await workspace.create();
    await deps.templates.materialize(name, workspace);
    await deps.db.workflow.update({ where: { id: workflow.id }, data: { template: name } });
    res.json({ name } satisfies UseTemplateResponse);
  };
  return { listTemplates, useTemplate };
}
