import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { authorizeWorkflow } from '../../policies/access';
import { presentWorkflowOf } from '../../reads/views';
import { actorOf } from './actions';

/** `POST /workflows/{id}/{pause,resume}` (decision 0039): the engine decides from the stored status. */
export function pauseHandlers(deps: AppDeps): Handlers<'pauseWorkflow' | 'resumeWorkflow'> {
  const { db, workflows, reads } = deps;

  const pauseWorkflow: OperationHandler<'pauseWorkflow'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { workflow } = await authorizeWorkflow(db, principal, input.params.id, 'workflow.control');
    const interrupt = input.body()?.interrupt ?? false;
    res.json(await presentWorkflowOf(reads, await workflows.pause(workflow, actorOf(principal), interrupt)));
  };

  const resumeWorkflow: OperationHandler<'resumeWorkflow'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { workflow } = await authorizeWorkflow(db, principal, input.params.id, 'workflow.control');
    input.body();
    res.json(await presentWorkflowOf(reads, await workflows.resume(workflow, actorOf(principal))));
  };

  return { pauseWorkflow, resumeWorkflow };
}
