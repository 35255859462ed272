import { z } from 'zod';
import { encodePath } from '@svc/client';
import { FileWrittenSchema, TimestampSchema } from '@svc/protocol';
import { API_BASE, apiClient, apiJson } from '../../lib/api';

const base = (id: string) => `/workflows/${encodeURIComponent(id)}`;

/** `GET /workflows/{id}/archive`: the whole workspace as a gzipped tar (a download). */
export const archiveUrl = (workflowId: string) => `${API_BASE}${base(workflowId)}/archive`;

/** A workspace file's text as stored (`?raw`: markdown unrendered). */
export const getFileText = (workflowId: string, path: string) =>
  apiClient.requestText(`${base(workflowId)}/files/${encodePath(path)}`, { query: { raw: 1 } });

/**
 * Uploads files into `dir` of the workspace in one multipart request (all or nothing). The form is
 * turned into a Blob first so its multipart type with the boundary is sent as the content type.
 */
export async function uploadFiles(workflowId: string, dir: string, files: readonly File[]) {
  const form = new FormData();
  for (const file of files) form.append('file', file, file.name);
  const body = await new Response(form).blob();
  return apiClient.request(`${base(workflowId)}/files`, z.array(FileWrittenSchema), {
    method: 'POST',
    query: { path: dir },
    body,
    contentType: body.type,
  });
}

export const DiffFileSchema = z.object({
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted']),
  additions: z.int().min(0),
  deletions: z.int().min(0),
  binary: z.boolean(),
});
export type DiffFile = z.infer<typeof DiffFileSchema>;

/** One step's change to the workspace (CONTRACT-V2 "Step diffs"). */
export const StepDiffSchema = z.object({
  step_index: z.int().min(0),
  revision: z.int().min(0),
  files: z.array(DiffFileSchema),
  patch: z.string(),
  truncated: z.boolean(),
  created_at: TimestampSchema,
});
export type StepDiff = z.infer<typeof StepDiffSchema>;

export const getStepDiffs = (workflowId: string) => apiJson(`${base(workflowId)}/diffs`, z.array(StepDiffSchema));
