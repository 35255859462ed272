import { z } from 'zod';
import { FileListSchema, FilesQuerySchema, FileWrittenSchema } from '../rest/files';
import { UseTemplateRequestSchema, UseTemplateResponseSchema } from '../rest/templates';
import { WorkflowSchema } from '../rest/workflows';
import { API, defineOperations, json, jsonBody, noContent, pathParams, workflowId } from './operation';

const RecursiveQuerySchema = FilesQuerySchema.extend({
  recursive: z.enum(['1', 'true', '0', 'false']).optional().describe('list the whole tree below `path`'),
});
const RawQuerySchema = z.object({
  raw: z.string().optional().describe('present: serve `.md` as text/plain instead of rendered HTML'),
});
const workspaceFile = (what: string) => pathParams({ id: 'workflow id', path: `${what} (may contain \`/\`)` });
const storageObject = pathParams({ id: 'project id', path: 'object path (may contain `/`)' });
const written = { 200: json('replaced', FileWrittenSchema), 201: json('created', FileWrittenSchema) };
const rawBody = { contentTypes: ['application/octet-stream'], required: true } as const;

/** Workspace files, templates, built apps and project object storage. */
export const FILE_OPERATIONS = defineOperations({
  getArchive: {
    method: 'GET',
    path: `${API}/workflows/{id}/archive`,
    tag: 'files',
    auth: 'required',
    action: 'files.read',
    params: workflowId,
    summary: 'The whole workspace as a streamed tar.gz (`workflow-<id>.tar.gz`)',
    description:
      'Regular files, directories and relative symbolic links that stay inside the workspace; upload ' +
      'temporaries and links that leave it are left out. Streamed: a failure on the way cuts the connection.',
    responses: {
      200: {
        description: 'the archive',
        contentType: 'application/gzip',
        headers: { 'Content-Disposition': 'attachment; filename="workflow-<id>.tar.gz"' },
      },
    },
  },
  listFiles: {
    method: 'GET',
    path: `${API}/workflows/{id}/files`,
    tag: 'files',
    auth: 'required',
    action: 'files.read',
    params: workflowId,
    query: RecursiveQuerySchema,
    summary: 'List a directory of the workspace',
    responses: { 200: json('entries', FileListSchema) },
    errors: [400],
  },
  uploadFiles: {
    method: 'POST',
    path: `${API}/workflows/{id}/files`,
    tag: 'files',
    auth: 'required',
    action: 'files.write',
    params: workflowId,
    query: FilesQuerySchema,
    summary: 'Upload files into directory `path` (multipart, streamed)',
    body: { contentTypes: ['multipart/form-data'], required: true },
    responses: { 201: json('the stored files', z.array(FileWrittenSchema)) },
    errors: [400, 413, 415],
  },
  readFile: {
    method: 'GET',
    path: `${API}/workflows/{id}/files/{path}`,
    tag: 'files',
    auth: 'required',
    action: 'files.read',
    params: workspaceFile('file path inside the workspace'),
    query: RawQuerySchema,
    summary: 'Serve a file (content type from its extension; `.md` rendered unless `?raw`), or list a directory',
    responses: { 200: { description: 'the file (or a FileList for a directory)', contentType: '*/*' } },
    errors: [400],
  },
  writeFile: {
    method: 'PUT',
    path: `${API}/workflows/{id}/files/{path}`,
    tag: 'files',
    auth: 'required',
    action: 'files.write',
    params: workspaceFile('file path inside the workspace'),
    summary: 'Write a file from the raw body (streamed; replaced atomically)',
    body: rawBody,
    responses: written,
    errors: [400, 413],
  },
  deleteFile: {
    method: 'DELETE',
    path: `${API}/workflows/{id}/files/{path}`,
    tag: 'files',
    auth: 'required',
    action: 'files.write',
    params: workspaceFile('file or directory path inside the workspace'),
    summary: 'Delete a file or directory',
    responses: { 204: noContent },
    errors: [400],
  },
  useTemplate: {
    method: 'POST',
    path: `${API}/workflows/{id}/template`,
    tag: 'files',
    auth: 'required',
    action: 'files.write',
    params: workflowId,
    summary: 'Copy a template branch into the workspace',
    body: jsonBody(UseTemplateRequestSchema),
    responses: { 200: json('copied', UseTemplateResponseSchema) },
    errors: [400],
  },
  rotateAppLink: {
    method: 'POST',
    path: `${API}/workflows/{id}/app-link/rotate`,
    tag: 'files',
    auth: 'required',
    action: 'workflow.control',
    params: workflowId,
    summary: "Give the workflow's built app a new link (`app_link`); the old one stops working at once",
    responses: { 200: json('the workflow with its new app_link', WorkflowSchema) },
  },
  serveBuiltApp: {
    method: 'GET',
    path: '/svc/apps/{app_key}/{path}',
    tag: 'files',
    auth: 'public',
    action: 'public',
    params: pathParams({
      app_key: "the key in the workflow's `app_link` (the link is the permission: no session is used)",
      path:
        "file path inside the app's folder (the folder the report's App URL names, else the workspace root); " +
        '`/` and a directory serve its index.html; dot names (`.env`, `.git/…`) and anything outside the folder are 404',
    }),
    summary: "A workflow's built app: its folder's files, sandboxed (an opaque origin without the session)",
    responses: {
      200: {
        description: 'the file, with `Content-Security-Policy: sandbox ...` and `Referrer-Policy: no-referrer`',
        contentType: '*/*',
      },
      301: { description: 'a directory named without its trailing `/`' },
      302: { description: "the link itself, when the app's folder is below the workspace root: to that folder" },
    },
    errors: [400],
  },
  readStorageObject: {
    method: 'GET',
    path: `${API}/projects/{id}/storage/{path}`,
    tag: 'storage',
    auth: 'required',
    action: 'storage.read',
    params: pathParams({ id: 'project id', path: 'object path (may contain `/`); a trailing `/` lists a directory' }),
    summary: 'Read an object, or list a directory (trailing slash)',
    responses: { 200: { description: 'the object (or a FileList for `<dir>/`)', contentType: '*/*' } },
    errors: [400],
  },
  writeStorageObject: {
    method: 'PUT',
    path: `${API}/projects/{id}/storage/{path}`,
    tag: 'storage',
    auth: 'required',
    action: 'storage.write',
    params: storageObject,
    summary: 'Store an object from the raw body (streamed, renamed into place when complete)',
    body: rawBody,
    responses: written,
    errors: [400, 413],
  },
  deleteStorageObject: {
    method: 'DELETE',
    path: `${API}/projects/{id}/storage/{path}`,
    tag: 'storage',
    auth: 'required',
    action: 'storage.write',
    params: storageObject,
    summary: 'Delete an object',
    responses: { 204: noContent },
    errors: [400],
  },
});
