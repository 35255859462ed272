import { auditContextOf } from '../../audit/record';
import type { Request } from 'express';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import type { Principal } from '../../auth/principal';
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
export function workflowActionHandlers(
  deps: AppDeps,
): Handlers<'answerWorkflow' | 'sendFeedback' | 'cancelWorkflow' | 'retryWorkflow'> {
  const { db, workflows, reads } = deps;
  const load = async (req: Request, id: string) => {
    const principal = principalOf(req);
    const { workflow } = await authorizeWorkflow(db, principal, id, 'workflow.control');
    return { workflow, actor: actorOf(principal) };
  };

  const answerWorkflow: OperationHandler<'answerWorkflow'> = async (req, res, input) => {
    const { workflow, actor } = await load(req, input.params.id);
    const { answer } = input.body();
    res.json(await presentWorkflowOf(reads, await workflows.answer(workflow, actor, answer)));
  };

  const sendFeedback: OperationHandler<'sendFeedback'> = async (req, res, input) => {
    const { workflow, actor } = await load(req, input.params.id);
    const { message } = input.body();
    res.json(await presentWorkflowOf(reads, await workflows.feedback(workflow, actor, message)));
  };

  const cancelWorkflow: OperationHandler<'cancelWorkflow'> = async (req, res, input) => {
    const { workflow, actor } = await load(req, input.params.id);
    input.body();
    res.json(await presentWorkflowOf(reads, await workflows.cancel(workflow, actor, undefined, auditContextOf(req))));
  };

  const retryWorkflow: OperationHandler<'retryWorkflow'> = async (req, res, input) => {
    const { workflow, actor } = await load(req, input.params.id);
    input.body();
    res.json(await presentWorkflowOf(reads, await workflows.retry(workflow, actor)));
  };

  return { answerWorkflow, sendFeedback, cancelWorkflow, retryWorkflow };
}
