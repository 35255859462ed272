import { apiJson, apiVoid } from '../../lib/api';
import {
  RepositoryListSchema,
  RepositorySchema,
  WorkflowRepositoryDiffSchema,
  WorkflowRepositorySchema,
  type CreateRepositoryRequest,
  type UpdateRepositoryRequest,
} from '@svc/protocol';

const enc = encodeURIComponent;

export const listRepositories = async (projectId: string) =>
  (await apiJson(`/projects/${enc(projectId)}/repositories`, RepositoryListSchema)).items;
export const createRepository = (projectId: string, body: CreateRepositoryRequest) =>
  apiJson(`/projects/${enc(projectId)}/repositories`, RepositorySchema, { method: 'POST', json: body });
export const updateRepository = (id: string, body: UpdateRepositoryRequest) =>
  apiJson(`/repositories/${enc(id)}`, RepositorySchema, { method: 'PATCH', json: body });
export const deleteRepository = (id: string) => apiVoid(`/repositories/${enc(id)}`, { method: 'DELETE' });
export const workflowRepository = (workflowId: string) =>
  apiJson(`/workflows/${enc(workflowId)}/repository`, WorkflowRepositorySchema);
export const workflowRepositoryDiff = (workflowId: string) =>
  apiJson(`/workflows/${enc(workflowId)}/repository/diff`, WorkflowRepositoryDiffSchema);
