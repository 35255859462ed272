import {
  IDEMPOTENCY_KEY_HEADER,
  parseWith,
  WaitingWorkflowsSchema,
  WorkflowPageSchema,
  WorkflowSchema,
  type CreateWorkflowRequest,
  type WorkflowStatus,
} from '@svc/protocol';
import { apiClient, apiJson, ApiError } from '../../lib/api';

const enc = encodeURIComponent;

export const WORKFLOW_PAGE_SIZE = 100;

/** What the run list shows: server-side filters (empty means all); `since`/`until` are days (YYYY-MM-DD). */
export interface RunFilter {
  statuses: readonly WorkflowStatus[];
  q: string;
  author: string;
  worker: string;
  since: string;
  until: string;
}

/** A day's start in UTC; `inclusive` the next day's start, so "to 5 Jan" keeps the runs made on 5 Jan. */
export function dayStart(day: string, inclusive = false): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const at = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(at.getTime())) return undefined;
  if (inclusive) at.setUTCDate(at.getUTCDate() + 1);
  return at.toISOString();
}

export const listWorkflows = (projectId: string, filter: RunFilter, cursor?: string) =>
  apiJson(`/projects/${enc(projectId)}/workflows`, WorkflowPageSchema, {
    query: {
      limit: WORKFLOW_PAGE_SIZE,
      cursor,
      status: filter.statuses.length ? filter.statuses.join(',') : undefined,
      q: filter.q.trim() || undefined,
      author: filter.author || undefined,
      worker: filter.worker || undefined,
      since: dayStart(filter.since),
      until: dayStart(filter.until, true),
    },
  });

export const getRun = (workflowId: string) => apiJson(`/workflows/${enc(workflowId)}`, WorkflowSchema);

/**
 * Starts a workflow. The same `idempotencyKey` in the same project answers with the workflow the first
 * request made, so a repeated submission (double click, retry after a lost answer) starts one run.
 */
export async function startRun(projectId: string, body: CreateWorkflowRequest, idempotencyKey: string) {
  const response = await apiClient.requestResponse(`/projects/${enc(projectId)}/workflows`, {
    method: 'POST',
    json: body,
    accept: 'application/json',
    headers: { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey },
  });
  const parsed = parseWith(WorkflowSchema, await response.json().catch(() => null));
  if (!parsed.ok) throw new ApiError(response.status, 'bad_response', `unexpected answer: ${parsed.error.message}`);
  return parsed.value;
}

/** A fresh Idempotency-Key (crypto.randomUUID needs a secure context; getRandomValues does not). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Runs waiting for the signed-in user's answer, across their projects. */
export const getWaiting = () => apiJson('/me/waiting', WaitingWorkflowsSchema);

export const listWorkers = () => apiClient.listWorkers();
export const listTemplates = () => apiClient.listTemplates();
