import { Router } from 'express';
import { TERMINAL_WORKFLOW_STATUSES, type WorkflowStatus } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { Principal } from '../../auth/principal';
import { principalOf, requireAuth } from '../../auth/authenticate';
import { conflict, notFound } from '../../http/errors';
import { parseInput } from '../../http/validate';
import { authorizeWorkflow } from '../../policies/access';
import type { ProjectAction } from '../../policies/rules';
import { presentTimer } from '../../services/timers';
import { CreateTimerRequestSchema } from './schema';

/** A worker sets timers on the workflows it runs; a person needs the right to steer the workflow. */
const controlAction = (principal: Principal): ProjectAction =>
  principal.kind === 'worker' ? 'workflow.worker' : 'workflow.control';

/** Timers (spec rule 12): durable scheduled resumes of a workflow, fired once by the server. */
export function timersRouter(deps: AppDeps): Router {
  const router = Router();
  const { db } = deps;

  router.post('/workflows/:id/timers', requireAuth, async (req, res) => {
    const principal = principalOf(req);
    const { workflow } = await authorizeWorkflow(db, principal, req.params.id as string, controlAction(principal));
    const body = parseInput(CreateTimerRequestSchema, req.body ?? {});
    if (TERMINAL_WORKFLOW_STATUSES.includes(workflow.status as WorkflowStatus))
      throw conflict(`the workflow has finished (status is ${workflow.status})`);
    const timer = await db.timer.create({
      data: {
        workflow_id: workflow.id,
        fire_at: new Date(Date.now() + body.seconds * 1000),
        reason: body.reason,
        status: 'pending',
      },
    });
    deps.dispatcher.timersChanged?.();
    res.status(201).location(`/svc/api/timers/${timer.id}`).json(presentTimer(timer));
  });

  router.get('/workflows/:id/timers', requireAuth, async (req, res) => {
    const { workflow } = await authorizeWorkflow(db, principalOf(req), req.params.id as string, 'workflow.read');
    const timers = await db.timer.findMany({
      where: { workflow_id: workflow.id },
      orderBy: [{ fire_at: 'asc' }, { id: 'asc' }],
    });
    res.json(timers.map(presentTimer));
  });

  /** Deleting a pending timer makes its workflow dispatchable at once. */
  router.delete('/timers/:id', requireAuth, async (req, res) => {
    const principal = principalOf(req);
    const timer = await db.timer.findUnique({ where: { id: req.params.id as string } });
    if (!timer) throw notFound('timer not found');
    await authorizeWorkflow(db, principal, timer.workflow_id, controlAction(principal));
    const { count } = await db.timer.updateMany({
      where: { id: timer.id, status: 'pending' },
      data: { status: 'cancelled' },
    });
    if (count === 0)
      throw conflict(`the timer is ${timer.status === 'pending' ? 'no longer pending' : timer.status} already`);
    deps.dispatcher.timersChanged?.();
    res.status(204).end();
  });

  return router;
}
