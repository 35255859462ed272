import { WorkflowSchema } from '@svc/protocol';
import { apiJson } from '../../lib/api';

const base = (id: string) => `/workflows/${encodeURIComponent(id)}`;

export const pauseWorkflow = (id: string, interrupt: boolean) =>
  apiJson(`${base(id)}/pause`, WorkflowSchema, { method: 'POST', json: { interrupt } });
export const resumeWorkflow = (id: string) =>
  apiJson(`${base(id)}/resume`, WorkflowSchema, { method: 'POST', json: {} });
