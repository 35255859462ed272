import {
  ApiTokenListSchema,
  DeletedProjectListSchema,
  ProjectSchema,
  TokenResponseSchema,
  WorkerListSchema,
  WorkerRunPageSchema,
  WorkerSchema,
} from '@svc/protocol';
import { apiJson, apiVoid } from '../../lib/api';

/** react-query keys of the admin pages (kept here so they stay with the pages that read them). */
export const adminKeys = {
  tokens: (all: boolean) => ['tokens', all ? 'all' : 'mine'] as const,
  tokensAll: ['tokens'] as const,
  workers: ['workers', 'with-runs'] as const,
  workerRuns: (id: string) => ['workers', id, 'runs'] as const,
  queue: ['admin', 'queue'] as const,
  deletedProjects: ['admin', 'deleted-projects'] as const,
};

export interface MintRequest {
  name: string;
  scope: 'api' | 'worker';
  project_id?: string;
  ttl_seconds: number;
}

export const listTokens = (all: boolean) => apiJson('/tokens', ApiTokenListSchema, all ? { query: { all: '1' } } : {});
export const mintToken = (body: MintRequest) => apiJson('/token', TokenResponseSchema, { method: 'POST', json: body });
export const revokeToken = (id: string) => apiVoid(`/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
export const listWorkersWithRuns = () => apiJson('/workers', WorkerListSchema);
/** The latest runs a worker took, held or finished, in projects the reader can see (decision 0078). */
export const RECENT_RUNS_SHOWN = 20;
export const listWorkerRecentRuns = (id: string) =>
  apiJson(`/workers/${encodeURIComponent(id)}/runs`, WorkerRunPageSchema, { query: { limit: RECENT_RUNS_SHOWN } });
export const listDeletedProjects = () => apiJson('/admin/deleted-projects', DeletedProjectListSchema);
export const restoreProject = (id: string) =>
  apiJson(`/projects/${encodeURIComponent(id)}/restore`, ProjectSchema, { method: 'POST' });

/** What an administrator may do to a worker (decision 0074). */
export type WorkerAction = 'pause' | 'drain' | 'resume';
export const changeWorker = (id: string, action: WorkerAction) =>
  apiJson(`/admin/workers/${encodeURIComponent(id)}/${action}`, WorkerSchema, { method: 'POST' });
