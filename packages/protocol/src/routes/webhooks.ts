import {
  CreateWebhookRequestSchema,
  UpdatedWebhookSchema,
  UpdateWebhookRequestSchema,
  WebhookDeliveriesQuerySchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookListSchema,
  WebhookSchema,
  WebhookWithSecretSchema,
} from '../rest/webhooks';
import { API, defineOperations, json, jsonBody, noContent, pathParams, projectId } from './operation';

const webhookId = pathParams({ id: 'webhook id' });
const deliveryParams = pathParams({ id: 'webhook id', did: 'delivery id' });

/** Outbound webhooks: a project's subscriptions to run events, their delivery log and redelivery (issue 25). */
export const WEBHOOK_OPERATIONS = defineOperations({
  listWebhooks: {
    method: 'GET',
    path: `${API}/projects/{id}/webhooks`,
    tag: 'webhooks',
    auth: 'required',
    action: 'webhook.manage',
    params: projectId,
    summary: "A project's outbound webhooks (without their secrets)",
    responses: { 200: json('webhooks', WebhookListSchema) },
  },
  createWebhook: {
    method: 'POST',
    path: `${API}/projects/{id}/webhooks`,
    tag: 'webhooks',
    auth: 'required',
    action: 'webhook.manage',
    params: projectId,
    summary: 'Subscribe a URL to run events; the signing secret is in this answer only',
    description:
      "Deliveries are POSTed as JSON (see the document's `webhooks`) with `X-Svc-Signature: sha256=hex(HMAC-SHA256(" +
      'secret, "<timestamp>.<body>"))` and `X-Svc-Timestamp`. Internal target addresses are refused unless the ' +
      'server allows them (WEBHOOK_ALLOW_PRIVATE_TARGETS).',
    body: jsonBody(CreateWebhookRequestSchema),
    responses: { 201: json('the webhook with its secret', WebhookWithSecretSchema) },
    errors: [400],
  },
  getWebhook: {
    method: 'GET',
    path: `${API}/webhooks/{id}`,
    tag: 'webhooks',
    auth: 'required',
    action: 'webhook.manage',
    params: webhookId,
    summary: 'One webhook (without its secret)',
    responses: { 200: json('the webhook', WebhookSchema) },
  },
  updateWebhook: {
    method: 'PATCH',
    path: `${API}/webhooks/{id}`,
    tag: 'webhooks',
    auth: 'required',
    action: 'webhook.manage',
    params: webhookId,
    summary: 'Change a webhook (URL, events, description, active) or rotate its secret (`rotate_secret: true`)',
    body: jsonBody(UpdateWebhookRequestSchema),
    responses: { 200: json('the webhook (with `secret` when rotated)', UpdatedWebhookSchema) },
    errors: [400],
  },
  deleteWebhook: {
    method: 'DELETE',
    path: `${API}/webhooks/{id}`,
    tag: 'webhooks',
    auth: 'required',
    action: 'webhook.manage',
    params: webhookId,
    summary: 'Delete a webhook and its secret; pending deliveries are given up',
    responses: { 204: noContent },
  },
  listWebhookDeliveries: {
    method: 'GET',
    path: `${API}/webhooks/{id}/deliveries`,
    tag: 'webhooks',
    auth: 'required',
    action: 'webhook.manage',
    params: webhookId,
    query: WebhookDeliveriesQuerySchema,
    summary: "A webhook's deliveries, latest first, each with its attempts (status code, duration, answer excerpt)",
    responses: { 200: json('deliveries', WebhookDeliveryListSchema) },
  },
  redeliverWebhookDelivery: {
    method: 'POST',
    path: `${API}/webhooks/{id}/deliveries/{did}/redeliver`,
    tag: 'webhooks',
    auth: 'required',
    action: 'webhook.manage',
    params: deliveryParams,
    summary: 'Send a delivery again (the same body and delivery id; retried with backoff like a new one)',
    responses: { 202: json('the delivery, pending again', WebhookDeliverySchema) },
  },
});
