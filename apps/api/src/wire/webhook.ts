import type { Webhook as WebhookRow, WebhookAttempt as AttemptRow, WebhookDelivery as DeliveryRow } from '@svc/db';
import type { Webhook, WebhookDelivery, WebhookDeliveryState, WebhookEventType } from '@svc/protocol';

export const presentWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  project_id: row.project_id,
  url: row.url,
  events: JSON.parse(row.events) as WebhookEventType[],
  description: row.description,
  active: row.active,
  created_by: row.created_by,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export const presentDelivery = (row: DeliveryRow, attempts: AttemptRow[]): WebhookDelivery => ({
  id: row.id,
  webhook_id: row.webhook_id,
  event_id: row.event_id,
  event_type: row.event_type as WebhookEventType,
  state: row.state as WebhookDeliveryState,
  attempts: row.attempts,
  last_status_code: row.last_status_code,
  last_error: row.last_error,
  next_attempt_at: row.state === 'pending' ? row.next_attempt_at.toISOString() : null,
  expires_at: row.expires_at.toISOString(),
  delivered_at: row.delivered_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  payload: row.payload,
  attempt_log: attempts.map((a) => ({
    attempt: a.attempt,
    status_code: a.status_code,
    duration_ms: a.duration_ms,
    response_excerpt: a.response_excerpt,
    error: a.error,
    redelivery: a.redelivery,
    at: a.at.toISOString(),
  })),
});
