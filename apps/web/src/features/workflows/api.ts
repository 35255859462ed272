import { WorkflowPageSchema, WorkflowSchema, type CreateWorkflowRequest } from '@svc/protocol';
import { apiClient, apiJson } from '../../lib/api';

const enc = encodeURIComponent;

export const WORKFLOW_PAGE_SIZE = 100;

export const listWorkflows = (projectId: string, cursor?: string) =>
  apiJson(`/projects/${enc(projectId)}/workflows`, WorkflowPageSchema, {
    query: { limit: WORKFLOW_PAGE_SIZE, cursor },
  });

export const createWorkflow = (projectId: string, body: CreateWorkflowRequest) =>
  apiJson(`/projects/${enc(projectId)}/workflows`, WorkflowSchema, { method: 'POST', json: body });

export const listWorkers = () => apiClient.listWorkers();
export const listTemplates = () => apiClient.listTemplates();
