import { Router } from 'express';
import { UseTemplateRequestSchema, type UseTemplateResponse } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth } from '../../auth/authenticate';
import { notFound } from '../../domain/errors';
import { parseInput } from '../../domain/validate';
import { authorizeGlobal, authorizeWorkflow } from '../../policies/access';

/**
 * `GET /templates` -> `[{name, description}]`, one per remote branch of the template repository, and
 * `POST /workflows/{id}/template` `{name}`: copies that branch's files into an existing workspace.
 */
export function templatesRouter(deps: AppDeps): Router {
  const router = Router();
  router.get('/templates', requireAuth, async (req, res) => {
    authorizeGlobal(principalOf(req), 'templates.read');
    res.json(await deps.templates.list());
  });
  router.post('/workflows/:id/template', requireAuth, async (req, res) => {
    const { workflow } = await authorizeWorkflow(deps.db, principalOf(req), String(req.params.id), 'files.write');
    const { name } = parseInput(UseTemplateRequestSchema, req.body ?? {});
    if (!(await deps.templates.list()).some((t) => t.name === name))
      throw notFound(`no template named ${JSON.stringify(name)}`);
    const workspace = deps.storage.workspace(workflow.project_id, workflow.id);
    await workspace.create();
    await deps.templates.materialize(name, workspace);
    await deps.db.workflow.update({ where: { id: workflow.id }, data: { template: name } });
    res.json({ name } satisfies UseTemplateResponse);
  });
  return router;
}
