import { auditContextOf, recordAudit } from '../../audit/record';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { authorizeProject, authorizeWorkflow } from '../../policies/access';
import { budgetText, storedBudget } from '../../workflows/spend';
import { actorOf } from '../workflows/actions';

/** A run's budget and spend (members read, members who control runs set and raise); the project default (owners). */
export function budgetHandlers(
  deps: AppDeps,
): Handlers<'getWorkflowBudget' | 'patchWorkflowBudget' | 'getProjectBudget' | 'putProjectBudget'> {
  const { db, workflows } = deps;

  const getWorkflowBudget: OperationHandler<'getWorkflowBudget'> = async (req, res, input) => {
    const { workflow } = await authorizeWorkflow(db, principalOf(req), input.params.id, 'workflow.read');
    res.json(await workflows.budgets.view(workflow.id));
  };

  const patchWorkflowBudget: OperationHandler<'patchWorkflowBudget'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { workflow } = await authorizeWorkflow(db, principal, input.params.id, 'workflow.control');
    const actor = actorOf(principal);
    const patch = input.body();
    res.json(await workflows.budgets.patch(workflow.id, actor, patch, auditContextOf(req)));
  };

  const getProjectBudget: OperationHandler<'getProjectBudget'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'project.read');
    res.json({ budget: storedBudget(project.default_budget) });
  };

  const putProjectBudget: OperationHandler<'putProjectBudget'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'project.budget');
    const { budget } = input.body();
    const text = budgetText(budget);
    await db.$transaction(async (tx) => {
      await tx.project.update({ where: { id: project.id }, data: { default_budget: text } });
      await recordAudit(tx, auditContextOf(req), {
        action: 'project.budget_updated',
        target: { type: 'project', id: project.id },
        projectId: project.id,
        detail: { budget: storedBudget(text) },
      });
    });
    res.json({ budget: storedBudget(text) });
  };

  return { getWorkflowBudget, patchWorkflowBudget, getProjectBudget, putProjectBudget };
}
