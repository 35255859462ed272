import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import type { Principal } from '../../auth/principal';
import { principalOf } from '../../auth/authenticate';
import { DomainError, notFound } from '../../domain/errors';
import { authorizeWorkflow } from '../../policies/access';
import type { ProjectAction } from '../../policies/rules';
import { presentTimer } from '../../wire/timer';

/** A worker sets timers on the workflows it runs; a person needs the right to steer the workflow. */
const controlAction = (principal: Principal): ProjectAction =>
  principal.kind === 'worker' ? 'workflow.worker' : 'workflow.control';

/** Timers (spec rule 12): durable scheduled resumes of a workflow, fired once by the server. */
export function timerHandlers(deps: AppDeps): Handlers<'createTimer' | 'listTimers' | 'cancelTimer'> {
  const { db } = deps;

  const createTimer: OperationHandler<'createTimer'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { workflow } = await authorizeWorkflow(db, principal, input.params.id, controlAction(principal));
    const body = input.body();
    const timer = await deps.workflows.setTimer(workflow, body.seconds, body.reason);
    res.status(201).location(`/svc/api/timers/${timer.id}`).json(presentTimer(timer));
  };

  const listTimers: OperationHandler<'listTimers'> = async (req, res, input) => {
    const { workflow } = await authorizeWorkflow(db, principalOf(req), input.params.id, 'workflow.read');
    const timers = await db.timer.findMany({
      where: { workflow_id: workflow.id },
      orderBy: [{ fire_at: 'asc' }, { id: 'asc' }],
    });
    res.json(timers.map(presentTimer));
  };

  /** Deleting a pending timer makes its workflow dispatchable at once. */
  const cancelTimer: OperationHandler<'cancelTimer'> = async (req, res, input) => {
    const principal = principalOf(req);
    const timer = await db.timer.findUnique({ where: { id: input.params.id } });
    if (!timer) throw notFound('timer not found');
    // A timer of a workflow the caller cannot see answers exactly like an unknown id: no existence oracle.
    await authorizeWorkflow(db, principal, timer.workflow_id, controlAction(principal)).catch((error: unknown) => {
      throw error instanceof DomainError && error.code === 'not_found' ? notFound('timer not found') : error;
    });
    await deps.workflows.cancelTimer(timer);
    res.status(204).end();
  };

  return { createTimer, listTimers, cancelTimer };
}
