import { RepositoryWebhookSecretSchema, WorkflowRepositorySchema } from '@svc/protocol';
import { apiJson } from '../../lib/api';

const enc = encodeURIComponent;

export const workflowRepositoryKey = (workflowId: string) => ['workflows', workflowId, 'repository'] as const;

/** The run's repository, branch and pull request (404 for a run without a repository). */
export const getWorkflowRepository = (workflowId: string) =>
  apiJson(`/workflows/${enc(workflowId)}/repository`, WorkflowRepositorySchema);

/** The answer carries the new webhook secret: shown once, never fetched again. */
export const rotateWebhookSecret = (repositoryId: string) =>
  apiJson(`/repositories/${enc(repositoryId)}/rotate-webhook-secret`, RepositoryWebhookSecretSchema, {
    method: 'POST',
  });
