import { BudgetPatchSchema, ProjectBudgetSchema, WorkflowBudgetSchema } from '../rest/budgets';
import { API, defineOperations, json, jsonBody, projectId, workflowId } from './operation';

const workflowBudget = json("the run's budget and what it has spent", WorkflowBudgetSchema);
const projectBudget = json('the default budget of new runs', ProjectBudgetSchema);

/** Run budgets (cost, tokens, wall time, LLM calls) and the project default a new run gets. */
export const BUDGET_OPERATIONS = defineOperations({
  getWorkflowBudget: {
    method: 'GET',
    path: `${API}/workflows/{id}/budget`,
    tag: 'workflows',
    auth: 'required',
    action: 'workflow.read',
    params: workflowId,
    summary: "A run's budget, its spend so far and the caps reached",
    responses: { 200: workflowBudget },
  },
  patchWorkflowBudget: {
    method: 'PATCH',
    path: `${API}/workflows/{id}/budget`,
    tag: 'workflows',
    auth: 'required',
    action: 'workflow.control',
    params: workflowId,
    summary:
      "Set or raise a run's budget (`null` removes a cap); a run waiting on the budget question resumes the same step when no cap is reached any more",
    body: jsonBody(BudgetPatchSchema),
    responses: { 200: workflowBudget },
    errors: [400],
  },
  getProjectBudget: {
    method: 'GET',
    path: `${API}/projects/{id}/budget`,
    tag: 'projects',
    auth: 'required',
    action: 'project.read',
    params: projectId,
    summary: "The project's default budget, copied onto a new run whose create request names none",
    responses: { 200: projectBudget },
  },
  putProjectBudget: {
    method: 'PUT',
    path: `${API}/projects/{id}/budget`,
    tag: 'projects',
    auth: 'required',
    action: 'project.budget',
    params: projectId,
    summary: "Set the project's default budget (owners; `{budget: null}` removes it)",
    body: jsonBody(ProjectBudgetSchema),
    responses: { 200: projectBudget },
    errors: [400],
  },
});
