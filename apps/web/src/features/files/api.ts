import { z } from 'zod';
import { encodePath } from '@svc/client';
import { FileWrittenSchema, StepDiffListSchema } from '@svc/protocol';
import { API_BASE, apiClient, apiJson } from '../../lib/api';

const base = (id: string) => `/workflows/${encodeURIComponent(id)}`;

/** `GET /workflows/{id}/archive`: the whole workspace as a gzipped tar (a download). */
export const archiveUrl = (workflowId: string) => `${API_BASE}${base(workflowId)}/archive`;

/** A workspace file's text as stored (`?raw`: markdown unrendered). */
export const getFileText = (workflowId: string, path: string) =>
  apiClient.requestText(`${base(workflowId)}/files/${encodePath(path)}`, { query: { raw: 1 } });

/**
 * Uploads files into `dir` of the workspace in one multipart request (all or nothing). The FormData
 * goes to fetch as it is, with no content type of ours: the browser writes the multipart type with its
 * boundary (a Blob of the form will not do: Blob types are lower-cased, and the boundary with them).
 */
export function uploadFiles(workflowId: string, dir: string, files: readonly File[]) {
  const form = new FormData();
  for (const file of files) form.append('file', file, file.name);
  return apiClient.request(`${base(workflowId)}/files`, z.array(FileWrittenSchema), {
    method: 'POST',
    query: { path: dir },
    // fetch takes any BodyInit; the client's type names only those it sets a content type for
    body: form as unknown as Blob,
  });
}

export const getStepDiffs = (workflowId: string) => apiJson(`${base(workflowId)}/diffs`, StepDiffListSchema);
