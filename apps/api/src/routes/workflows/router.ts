import { Router } from 'express';
import { CreateWorkflowRequestSchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth } from '../../auth/authenticate';
import { parseInput } from '../../domain/validate';
import { forbidden } from '../../domain/errors';
import { authorizeProject, authorizeWorkflow } from '../../policies/access';
import { presentWorkflow } from '../../wire/workflow';
import { beforeTimeId, readPageQuery, TimeIdKeySchema, toPage } from '../../http/pagination';
import { workflowViews } from '../../reads/views';
import { workflowActionsRouter } from './actions';
import { workflowHistoryRouter } from './history';
import { workflowReportRouter } from './report';
import { workflowArchiveRouter } from './archive';

/** Workflows of a project, one workflow, its actions and its history. */
export function workflowsRouter(deps: AppDeps): Router {
  const router = Router();
  const { db } = deps;

  router.get('/projects/:id/workflows', requireAuth, async (req, res) => {
    const principal = principalOf(req);
    const { project } = await authorizeProject(db, principal, req.params.id as string, 'workflow.read');
    const page = readPageQuery(req.query, TimeIdKeySchema);
    // A job token lists only its own workflow, never its siblings (their requirements are not its business).
    const onlyOwn = principal.kind === 'job' ? { id: principal.workflowId } : {};
    const rows = await db.workflow.findMany({
      where: { project_id: project.id, deleted_at: null, ...onlyOwn, ...beforeTimeId(page.after) },
      orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
      take: page.limit + 1,
    });
    res.json(toPage(rows, page.limit, (w) => [w.created_at.toISOString(), w.id], presentWorkflow));
  });

  router.post('/projects/:id/workflows', requireAuth, async (req, res) => {
    const principal = principalOf(req);
    const { project } = await authorizeProject(db, principal, req.params.id as string, 'workflow.create');
    if (principal.kind !== 'user') throw forbidden('only a person creates workflows');
    const body = parseInput(CreateWorkflowRequestSchema, req.body ?? {});
    const workflow = await deps.workflows.create(project, principal.user.id, body);
    res.status(201).location(`/svc/api/workflows/${workflow.id}`).json(presentWorkflow(workflow));
  });

  router.get('/workflows/:id', requireAuth, async (req, res) => {
    const { workflow } = await authorizeWorkflow(db, principalOf(req), req.params.id as string, 'workflow.read');
    res.json(await workflowViews.workflow(deps.reads, workflow, req.query));
  });

  router.delete('/workflows/:id', requireAuth, async (req, res) => {
    const { workflow } = await authorizeWorkflow(db, principalOf(req), req.params.id as string, 'workflow.control');
    await deps.workflows.remove(workflow);
    res.status(204).end();
  });

  router.use(workflowActionsRouter(deps));
  router.use(workflowHistoryRouter(deps));
  router.use(workflowReportRouter(deps));
  router.use(workflowArchiveRouter(deps));
  return router;
}
