import { Router, type Request } from 'express';
import { AnswerRequestSchema, EmptyRequestSchema, FeedbackRequestSchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth } from '../../auth/authenticate';
import type { Principal } from '../../auth/principal';
import { parseInput } from '../../domain/validate';
import { forbidden } from '../../domain/errors';
import { authorizeWorkflow } from '../../policies/access';
import { presentWorkflowOf } from '../../reads/views';
import type { Actor } from '../../workflows';

/** The person behind an action (the workflow_action event names them); only people act on workflows. */
export function actorOf(principal: Principal): Actor {
  if (principal.kind !== 'user') throw forbidden('only a person acts on workflows');
  return principal.user;
}

/** `POST /workflows/{id}/{answer,feedback,cancel,retry}`: each checks the status and changes it atomically. */
export function workflowActionsRouter(deps: AppDeps): Router {
  const router = Router();
  const { db, workflows, reads } = deps;
  const load = async (req: Request) => {
    const principal = principalOf(req);
    const { workflow } = await authorizeWorkflow(db, principal, req.params.id as string, 'workflow.control');
    return { workflow, actor: actorOf(principal) };
  };

  router.post('/workflows/:id/answer', requireAuth, async (req, res) => {
    const { workflow, actor } = await load(req);
    const { answer } = parseInput(AnswerRequestSchema, req.body ?? {});
    res.json(await presentWorkflowOf(reads, await workflows.answer(workflow, actor, answer)));
  });

  router.post('/workflows/:id/feedback', requireAuth, async (req, res) => {
    const { workflow, actor } = await load(req);
    const { message } = parseInput(FeedbackRequestSchema, req.body ?? {});
    res.json(await presentWorkflowOf(reads, await workflows.feedback(workflow, actor, message)));
  });

  router.post('/workflows/:id/cancel', requireAuth, async (req, res) => {
    const { workflow, actor } = await load(req);
    parseInput(EmptyRequestSchema, req.body ?? {});
    res.json(await presentWorkflowOf(reads, await workflows.cancel(workflow, actor)));
  });

  router.post('/workflows/:id/retry', requireAuth, async (req, res) => {
    const { workflow, actor } = await load(req);
    parseInput(EmptyRequestSchema, req.body ?? {});
    res.json(await presentWorkflowOf(reads, await workflows.retry(workflow, actor)));
  });

  return router;
}
