import {
  CreateRepositoryRequestSchema,
  RepositoryListSchema,
  RepositorySchema,
  UpdateRepositoryRequestSchema,
  WorkflowRepositoryDiffSchema,
  WorkflowRepositorySchema,
} from '../rest/repositories';
import { API, defineOperations, json, jsonBody, noContent, pathParams, projectId, workflowId } from './operation';

const repositoryId = pathParams({ id: 'repository id' });
const WRITE_ONLY =
  'The credential (an access token, or an SSH deploy key) and the webhook secret are write-only: no answer ' +
  'contains them. They are encrypted at rest and reach only the worker that clones and pushes, never the ' +
  "agent, a command's environment or a log.";

/** A project's git repositories (decision 0046): owners manage them, members see them. */
export const REPOSITORY_OPERATIONS = defineOperations({
  listRepositories: {
    method: 'GET',
    path: `${API}/projects/{id}/repositories`,
    tag: 'repositories',
    auth: 'required',
    action: 'repository.read',
    params: projectId,
    summary: "A project's repositories, sorted by name",
    responses: { 200: json('the repositories', RepositoryListSchema) },
  },
  createRepository: {
    method: 'POST',
    path: `${API}/projects/{id}/repositories`,
    tag: 'repositories',
    auth: 'required',
    action: 'repository.manage',
    params: projectId,
    summary: 'Connect a git repository to a project (owners)',
    description: `${WRITE_ONLY} A name is unique among the project's repositories (409 otherwise).`,
    body: jsonBody(CreateRepositoryRequestSchema),
    responses: { 201: json('the repository', RepositorySchema) },
    errors: [400, 409],
  },
  getRepository: {
    method: 'GET',
    path: `${API}/repositories/{id}`,
    tag: 'repositories',
    auth: 'required',
    action: 'repository.read',
    params: repositoryId,
    summary: 'One repository',
    responses: { 200: json('the repository', RepositorySchema) },
  },
  updateRepository: {
    method: 'PATCH',
    path: `${API}/repositories/{id}`,
    tag: 'repositories',
    auth: 'required',
    action: 'repository.manage',
    params: repositoryId,
    summary: 'Change a repository (owners); a `credential` replaces the stored one',
    description: WRITE_ONLY,
    body: jsonBody(UpdateRepositoryRequestSchema),
    responses: { 200: json('the repository', RepositorySchema) },
    errors: [400, 409],
  },
  deleteRepository: {
    method: 'DELETE',
    path: `${API}/repositories/{id}`,
    tag: 'repositories',
    auth: 'required',
    action: 'repository.manage',
    params: repositoryId,
    summary: 'Disconnect a repository (owners): its credential is erased; runs that used it keep their record',
    responses: { 204: noContent },
  },
  getWorkflowRepository: {
    method: 'GET',
    path: `${API}/workflows/{id}/repository`,
    tag: 'repositories',
    auth: 'required',
    action: 'workflow.read',
    params: workflowId,
    summary: "The run's repository: base branch, its branch, the pushed head and the pull request",
    description: '404 when the run works in no repository.',
    responses: { 200: json('the run’s repository', WorkflowRepositorySchema) },
  },
  getWorkflowRepositoryDiff: {
    method: 'GET',
    path: `${API}/workflows/{id}/repository/diff`,
    tag: 'repositories',
    auth: 'required',
    action: 'workflow.read',
    params: workflowId,
    summary: "The run's branch's diff against its base, as the worker last pushed it",
    description:
      'The worker sends the diff (at most 1 MiB, then `truncated`) with its push report; before that the patch is empty.',
    responses: { 200: json('the diff', WorkflowRepositoryDiffSchema) },
  },
});
