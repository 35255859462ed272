import {
  ProjectBudgetSchema,
  WorkflowBudgetSchema,
  type Budget,
  type BudgetPatch,
  type ProjectBudget,
  type WorkflowBudget,
} from '@svc/protocol';
import { apiJson } from '../../lib/api';
import { queryKeys } from '../../lib/query-keys';

export const budgetKeys = {
  run: (workflowId: string) => [...queryKeys.workflowAll(workflowId), 'budget'] as const,
  project: (projectId: string) => ['project', projectId, 'budget'] as const,
};

const enc = encodeURIComponent;

export const runBudget = (workflowId: string): Promise<WorkflowBudget> =>
  apiJson(`/workflows/${enc(workflowId)}/budget`, WorkflowBudgetSchema);

export const patchRunBudget = (workflowId: string, patch: BudgetPatch): Promise<WorkflowBudget> =>
  apiJson(`/workflows/${enc(workflowId)}/budget`, WorkflowBudgetSchema, { method: 'PATCH', json: patch });

export const projectBudget = (projectId: string): Promise<ProjectBudget> =>
  apiJson(`/projects/${enc(projectId)}/budget`, ProjectBudgetSchema);

export const putProjectBudget = (projectId: string, budget: Budget | null): Promise<ProjectBudget> =>
  apiJson(`/projects/${enc(projectId)}/budget`, ProjectBudgetSchema, { method: 'PUT', json: { budget } });
