import { Router, type Request } from 'express';
import { AnswerRequestSchema, EmptyRequestSchema, FeedbackRequestSchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth } from '../../auth/authenticate';
import { parseInput } from '../../domain/validate';
import { authorizeWorkflow } from '../../policies/access';
import { presentWorkflow } from '../../wire/workflow';

/** `POST /workflows/{id}/{answer,feedback,cancel,retry}`: each checks the status and changes it atomically. */
export function workflowActionsRouter(deps: AppDeps): Router {
  const router = Router();
  const { db, workflows } = deps;
  const load = (req: Request) => authorizeWorkflow(db, principalOf(req), req.params.id as string, 'workflow.control');

  router.post('/workflows/:id/answer', requireAuth, async (req, res) => {
    const { workflow } = await load(req);
    const { answer } = parseInput(AnswerRequestSchema, req.body ?? {});
    res.json(presentWorkflow(await workflows.answer(workflow, answer)));
  });

  router.post('/workflows/:id/feedback', requireAuth, async (req, res) => {
    const { workflow } = await load(req);
    const { message } = parseInput(FeedbackRequestSchema, req.body ?? {});
    res.json(presentWorkflow(await workflows.feedback(workflow, message)));
  });

  router.post('/workflows/:id/cancel', requireAuth, async (req, res) => {
    const { workflow } = await load(req);
    parseInput(EmptyRequestSchema, req.body ?? {});
    res.json(presentWorkflow(await workflows.cancel(workflow)));
  });

  router.post('/workflows/:id/retry', requireAuth, async (req, res) => {
    const { workflow } = await load(req);
    parseInput(EmptyRequestSchema, req.body ?? {});
    res.json(presentWorkflow(await workflows.retry(workflow)));
  });

  return router;
}
