import {
  PutInstanceSecretRequestSchema,
  PutSecretRequestSchema,
  SecretEventPageSchema,
  SecretEventsQuerySchema,
  SecretInfoSchema,
  SecretListSchema,
} from '../rest/secrets';
import { API, defineOperations, json, jsonBody, noContent, pathParams, projectId } from './operation';

const projectSecret = pathParams({ id: 'project id', name: 'secret name (an environment variable name)' });
const instanceSecret = pathParams({ name: 'secret name (an environment variable name)' });
const WRITE_ONLY =
  'The value is write-only: no answer ever contains it. It is encrypted at rest (AES-256-GCM) and reaches ' +
  'only the runs that get it, inside their dispatch; every text the service stores or streams masks it as `***`.';

/** Secrets of a project (owners write, members see names) and of the instance (administrators); decision 0040. */
export const SECRET_OPERATIONS = defineOperations({
  listSecrets: {
    method: 'GET',
    path: `${API}/projects/{id}/secrets`,
    tag: 'secrets',
    auth: 'required',
    action: 'secret.read',
    params: projectId,
    summary: "A project's secrets by name, with who changed them and when (never their values)",
    responses: { 200: json('secrets, sorted by name', SecretListSchema) },
  },
  listSecretEvents: {
    method: 'GET',
    path: `${API}/projects/{id}/secrets/events`,
    tag: 'secrets',
    auth: 'required',
    action: 'secret.read',
    params: projectId,
    query: SecretEventsQuerySchema,
    summary: "The audit of a project's secrets, newest first: changes, and the runs that received a secret",
    description: 'A run of the project that received an instance secret is listed too (`scope: instance`).',
    responses: { 200: json('a page of events', SecretEventPageSchema) },
    errors: [400],
  },
  putSecret: {
    method: 'PUT',
    path: `${API}/projects/{id}/secrets/{name}`,
    tag: 'secrets',
    auth: 'required',
    action: 'secret.manage',
    params: projectSecret,
    summary: 'Create or replace a project secret (owners)',
    description: `${WRITE_ONLY} A project secret shadows an instance secret of the same name.`,
    body: jsonBody(PutSecretRequestSchema),
    responses: {
      201: json('created', SecretInfoSchema),
      200: json('replaced', SecretInfoSchema),
    },
    errors: [400],
  },
  deleteSecret: {
    method: 'DELETE',
    path: `${API}/projects/{id}/secrets/{name}`,
    tag: 'secrets',
    auth: 'required',
    action: 'secret.manage',
    params: projectSecret,
    summary: 'Delete a project secret (owners); runs dispatched later no longer get it',
    responses: { 204: noContent },
  },
  listInstanceSecrets: {
    method: 'GET',
    path: `${API}/admin/secrets`,
    tag: 'secrets',
    auth: 'required',
    action: 'secrets.instance',
    summary: "The instance's secrets by name, with their visibility (administrators; never their values)",
    responses: { 200: json('secrets, sorted by name', SecretListSchema) },
  },
  listInstanceSecretEvents: {
    method: 'GET',
    path: `${API}/admin/secrets/events`,
    tag: 'secrets',
    auth: 'required',
    action: 'secrets.instance',
    query: SecretEventsQuerySchema,
    summary: 'The audit of instance secrets, newest first: changes, and the runs (of any project) that received one',
    responses: { 200: json('a page of events', SecretEventPageSchema) },
    errors: [400],
  },
  putInstanceSecret: {
    method: 'PUT',
    path: `${API}/admin/secrets/{name}`,
    tag: 'secrets',
    auth: 'required',
    action: 'secrets.instance',
    params: instanceSecret,
    summary: 'Create or replace an instance secret (administrators)',
    description:
      `${WRITE_ONLY} \`visibility: all\` gives it to every run; \`templates\` only to runs of a template whose ` +
      'branch has a `.svc-secrets` file naming it.',
    body: jsonBody(PutInstanceSecretRequestSchema),
    responses: {
      201: json('created', SecretInfoSchema),
      200: json('replaced', SecretInfoSchema),
    },
    errors: [400],
  },
  deleteInstanceSecret: {
    method: 'DELETE',
    path: `${API}/admin/secrets/{name}`,
    tag: 'secrets',
    auth: 'required',
    action: 'secrets.instance',
    params: instanceSecret,
    summary: 'Delete an instance secret (administrators)',
    responses: { 204: noContent },
  },
});
