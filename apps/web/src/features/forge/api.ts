import { RepositoryWebhookSecretSchema } from '@svc/protocol';
import { apiJson } from '../../lib/api';

const enc = encodeURIComponent;

/** The answer carries the new webhook secret: shown once, never fetched again. */
export const rotateWebhookSecret = (repositoryId: string) =>
  apiJson(`/repositories/${enc(repositoryId)}/rotate-webhook-secret`, RepositoryWebhookSecretSchema, {
    method: 'POST',
  });
