import { encodePath } from '@svc/client';
import { ExecutionLogPageSchema, LlmCallPageSchema, PlanResponseSchema, WorkflowSchema } from '@svc/protocol';
import { API_BASE, apiClient, apiJson, apiText } from '../../lib/api';

const enc = encodeURIComponent;
const base = (id: string) => `/workflows/${enc(id)}`;

export const HISTORY_PAGE_SIZE = 500;

export const getWorkflow = (id: string) => apiJson(base(id), WorkflowSchema);
export const getPlan = (id: string) => apiJson(`${base(id)}/plan`, PlanResponseSchema);
export const getLog = (id: string, cursor?: string) =>
  apiJson(`${base(id)}/log`, ExecutionLogPageSchema, { query: { limit: HISTORY_PAGE_SIZE, cursor } });
export const getLlmCalls = (id: string, cursor?: string, limit = HISTORY_PAGE_SIZE) =>
  apiJson(`${base(id)}/llm-calls`, LlmCallPageSchema, { query: { limit, cursor } });
export const listFiles = (id: string, path: string) => apiClient.listFiles(id, { path });
export const getReportMarkdown = (id: string) => apiText(`${base(id)}/report`);

export const answerQuestion = (id: string, answer: string) =>
  apiJson(`${base(id)}/answer`, WorkflowSchema, { method: 'POST', json: { answer } });
export const sendFeedback = (id: string, message: string) =>
  apiJson(`${base(id)}/feedback`, WorkflowSchema, { method: 'POST', json: { message } });
export const cancelWorkflow = (id: string) =>
  apiJson(`${base(id)}/cancel`, WorkflowSchema, { method: 'POST', json: {} });
export const retryWorkflow = (id: string) => apiJson(`${base(id)}/retry`, WorkflowSchema, { method: 'POST', json: {} });

/** Where a workspace file is served (rendered for .md); each path segment is encoded on its own. */
export function fileUrl(workflowId: string, path: string): string {
  return `${API_BASE}${base(workflowId)}/files/${encodePath(path)}`;
}

export const reportHtmlUrl = (workflowId: string) => `${API_BASE}${base(workflowId)}/report?format=html`;

/** Where the workflow's stored events stream from (Server-Sent Events; `since_seq=0` replays them all). */
export const eventStreamUrl = (workflowId: string, sinceSeq: number) =>
  `${API_BASE}${base(workflowId)}/events?since_seq=${sinceSeq}`;
