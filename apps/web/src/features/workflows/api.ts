import { parseWith, type WorkflowStatus } from '@svc/protocol';
import { apiClient, apiJson, ApiError } from '../../lib/api';
import { RunPageSchema, RunSchema, WaitingResponseSchema } from './wire';

const enc = encodeURIComponent;

export const WORKFLOW_PAGE_SIZE = 100;

/** What the run list shows: server-side filters (empty means all). */
export interface RunFilter {
  statuses: readonly WorkflowStatus[];
  q: string;
}

export const listWorkflows = (projectId: string, filter: RunFilter, cursor?: string) =>
  apiJson(`/projects/${enc(projectId)}/workflows`, RunPageSchema, {
    query: {
      limit: WORKFLOW_PAGE_SIZE,
      cursor,
      status: filter.statuses.length ? filter.statuses.join(',') : undefined,
      q: filter.q.trim() || undefined,
    },
  });

export const getRun = (workflowId: string) => apiJson(`/workflows/${enc(workflowId)}`, RunSchema);

export interface StartRunBody {
  requirement: string;
  worker_id?: string;
  template?: string;
  /** the workflow this one re-runs */
  rerun_of?: string;
}

/**
 * Starts a workflow. The same `idempotencyKey` in the same project answers with the workflow the first
 * request made, so a repeated submission (double click, retry after a lost answer) starts one run.
 */
export async function startRun(projectId: string, body: StartRunBody, idempotencyKey: string) {
  const response = await apiClient.requestResponse(`/projects/${enc(projectId)}/workflows`, {
    method: 'POST',
    json: body,
    accept: 'application/json',
    headers: { 'Idempotency-Key': idempotencyKey },
  });
  const parsed = parseWith(RunSchema, await response.json().catch(() => null));
  if (!parsed.ok) throw new ApiError(response.status, 'bad_response', `unexpected answer: ${parsed.error.message}`);
  return parsed.value;
}

/** A fresh Idempotency-Key (crypto.randomUUID needs a secure context; getRandomValues does not). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Runs waiting for the signed-in user's answer, across their projects. */
export const getWaiting = () => apiJson('/me/waiting', WaitingResponseSchema);

export const listWorkers = () => apiClient.listWorkers();
export const listTemplates = () => apiClient.listTemplates();
