import {
  UpdatedWebhookSchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookListSchema,
  WebhookWithSecretSchema,
  type CreateWebhookRequest,
  type UpdateWebhookRequest,
} from '@svc/protocol';
import { apiJson, apiVoid } from '../../lib/api';

const enc = encodeURIComponent;

export const webhooksKey = (projectId: string) => ['projects', projectId, 'webhooks'] as const;
export const webhookDeliveriesKey = (webhookId: string) => ['webhooks', webhookId, 'deliveries'] as const;

export const listWebhooks = (projectId: string) => apiJson(`/projects/${enc(projectId)}/webhooks`, WebhookListSchema);
/** The answer carries the secret: shown once, never fetched again. */
export const createWebhook = (projectId: string, body: CreateWebhookRequest) =>
  apiJson(`/projects/${enc(projectId)}/webhooks`, WebhookWithSecretSchema, { method: 'POST', json: body });
export const updateWebhook = (id: string, body: UpdateWebhookRequest) =>
  apiJson(`/webhooks/${enc(id)}`, UpdatedWebhookSchema, { method: 'PATCH', json: body });
export const deleteWebhook = (id: string) => apiVoid(`/webhooks/${enc(id)}`, { method: 'DELETE' });
export const listWebhookDeliveries = (id: string) =>
  apiJson(`/webhooks/${enc(id)}/deliveries`, WebhookDeliveryListSchema);
export const redeliver = (id: string, deliveryId: string) =>
  apiJson(`/webhooks/${enc(id)}/deliveries/${enc(deliveryId)}/redeliver`, WebhookDeliverySchema, { method: 'POST' });
