import { Router, type Request } from 'express';
import { z } from 'zod';
import { AnswerRequestSchema, FeedbackRequestSchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth } from '../../auth/authenticate';
import { parseInput } from '../../http/validate';
import { conflict } from '../../http/errors';
import { authorizeWorkflow } from '../../policies/access';
import { presentWorkflow } from '../../presenters/workflow';
import { dispatchSafely, transitionWorkflow, UNFINISHED_STATUSES } from './status';

const EmptyBodySchema = z.object({}).strict();

/** `POST /workflows/{id}/{answer,feedback,cancel,retry}`: each checks the status and changes it atomically. */
export function workflowActionsRouter(deps: AppDeps): Router {
  const router = Router();
  const { db } = deps;
  const load = (req: Request) => authorizeWorkflow(db, principalOf(req), req.params.id as string, 'workflow.control');

  router.post('/workflows/:id/answer', requireAuth, async (req, res) => {
    const { workflow } = await load(req);
    const { answer } = parseInput(AnswerRequestSchema, req.body ?? {});
    const updated = await transitionWorkflow(
      deps,
      workflow,
      ['waiting_user'],
      { status: 'running', question: null },
      'the workflow is not waiting for an answer',
    );
    await dispatchSafely(req.log, 'answer', workflow.id, () => deps.dispatcher.answer(workflow.id, answer));
    res.json(presentWorkflow(updated));
  });

  router.post('/workflows/:id/feedback', requireAuth, async (req, res) => {
    const { workflow } = await load(req);
    const { message } = parseInput(FeedbackRequestSchema, req.body ?? {});
    if (workflow.status === 'waiting_user') throw conflict('answer the open question first');
    if (workflow.status === 'cancelled') throw conflict('the workflow was cancelled; retry it first');
    if ((await db.agentStateSnapshot.count({ where: { workflow_id: workflow.id } })) === 0)
      throw conflict('there is no plan to revise yet');
    // A finished workflow goes back to the queue; one in progress keeps its status and the worker revises.
    const updated =
      workflow.status === 'completed' || workflow.status === 'failed'
        ? await transitionWorkflow(
            deps,
            workflow,
            ['completed', 'failed'],
            { status: 'pending', error: null },
            'the workflow changed meanwhile',
          )
        : workflow;
    await dispatchSafely(req.log, 'feedback', workflow.id, () => deps.dispatcher.feedback(workflow.id, message));
    res.json(presentWorkflow(updated));
  });

  router.post('/workflows/:id/cancel', requireAuth, async (req, res) => {
    const { workflow } = await load(req);
    parseInput(EmptyBodySchema, req.body ?? {});
    const updated = await transitionWorkflow(
      deps,
      workflow,
      UNFINISHED_STATUSES,
      { status: 'cancelled', question: null },
      'the workflow has already finished',
    );
    await dispatchSafely(req.log, 'cancel', workflow.id, () => deps.dispatcher.cancel(workflow.id));
    res.json(presentWorkflow(updated));
  });

  router.post('/workflows/:id/retry', requireAuth, async (req, res) => {
    const { workflow } = await load(req);
    parseInput(EmptyBodySchema, req.body ?? {});
    const updated = await transitionWorkflow(
      deps,
      workflow,
      ['failed', 'cancelled'],
      { status: 'pending', error: null, question: null },
      'only a failed or cancelled workflow can be retried',
    );
    await dispatchSafely(req.log, 'retry', workflow.id, () => deps.dispatcher.retry(workflow.id));
    res.json(presentWorkflow(updated));
  });

  return router;
}
