import { z } from 'zod';
import { IdSchema, TimestampSchema, WorkflowStatusSchema } from '../common';

/** The public run events outbound webhooks subscribe to (apps/api/src/outbox). */
export const WebhookEventTypeSchema = z.enum([
  'run.created',
  'run.waiting_for_input',
  'run.completed',
  'run.failed',
  'run.cancelled',
  'run.budget_reached',
  'run.pull_request_opened',
]);
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;

/** What a webhook shows of its last delivery. */
export const WebhookDeliveryStateSchema = z.enum(['pending', 'delivered', 'failed']);
export type WebhookDeliveryState = z.infer<typeof WebhookDeliveryStateSchema>;

/** A project's outbound webhook (never with its secret). */
export const WebhookSchema = z.object({
  id: IdSchema,
  project_id: IdSchema,
  url: z.string(),
  /** the event types delivered; empty: every type */
  events: z.array(WebhookEventTypeSchema),
  description: z.string(),
  active: z.boolean(),
  created_by: IdSchema,
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type Webhook = z.infer<typeof WebhookSchema>;
export const WebhookListSchema = z.array(WebhookSchema);

/** Create and rotate answer with the secret, once: `whsec_` and 64 hex digits. */
export const WebhookWithSecretSchema = WebhookSchema.extend({ secret: z.string() });
export type WebhookWithSecret = z.infer<typeof WebhookWithSecretSchema>;

const UrlSchema = z.string().min(1).max(2000);

export const CreateWebhookRequestSchema = z
  .object({
    url: UrlSchema,
    events: z.array(WebhookEventTypeSchema).max(20).optional(),
    description: z.string().max(500).optional(),
    active: z.boolean().optional(),
  })
  .strict();
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequestSchema>;

/** PATCH /webhooks/{id}: the fields to change; `rotate_secret: true` answers the new secret once. */
export const UpdateWebhookRequestSchema = z
  .object({
    url: UrlSchema.optional(),
    events: z.array(WebhookEventTypeSchema).max(20).optional(),
    description: z.string().max(500).optional(),
    active: z.boolean().optional(),
    rotate_secret: z.boolean().optional(),
  })
  .strict();
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequestSchema>;

/** PATCH answers the webhook, and the new secret only when it was rotated. */
export const UpdatedWebhookSchema = WebhookSchema.extend({ secret: z.string().optional() });

/** One HTTP attempt of a delivery (the delivery log). */
export const WebhookAttemptSchema = z.object({
  attempt: z.int().min(1),
  /** null when no answer came (refused target, connection error, time-out) */
  status_code: z.int().nullable(),
  duration_ms: z.int().min(0),
  /** the answer's first 1024 bytes */
  response_excerpt: z.string(),
  error: z.string().nullable(),
  redelivery: z.boolean(),
  at: TimestampSchema,
});
export type WebhookAttempt = z.infer<typeof WebhookAttemptSchema>;

/** One webhook's delivery of one event, with its attempts (latest first). */
export const WebhookDeliverySchema = z.object({
  id: IdSchema,
  webhook_id: IdSchema,
  event_id: z.string(),
  event_type: WebhookEventTypeSchema,
  state: WebhookDeliveryStateSchema,
  attempts: z.int().min(0),
  last_status_code: z.int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: TimestampSchema.nullable(),
  expires_at: TimestampSchema,
  delivered_at: TimestampSchema.nullable(),
  created_at: TimestampSchema,
  /** the JSON body sent (the same bytes every attempt) */
  payload: z.string(),
  attempt_log: z.array(WebhookAttemptSchema),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;
export const WebhookDeliveryListSchema = z.array(WebhookDeliverySchema);
export const WebhookDeliveriesQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(200).optional() });

/** The body of every delivery (documented per event type in the OpenAPI document's `webhooks`). */
export const WebhookPayloadSchema = z.object({
  /** the event id: the same for every attempt and redelivery (receivers key idempotency on it) */
  id: z.string(),
  type: WebhookEventTypeSchema,
  created_at: TimestampSchema,
  project_id: IdSchema,
  workflow_id: IdSchema,
  data: z
    .object({
      title: z.string().nullable(),
      number: z.int().nullable(),
      status: WorkflowStatusSchema.nullable(),
      run_url: z.string(),
      report_url: z.string(),
      question: z.string().nullable().optional(),
      error: z.string().nullable().optional(),
      policy: z.string().nullable().optional(),
      reached: z.array(z.unknown()).optional(),
      message: z.string().nullable().optional(),
      pr_url: z.string().nullable().optional(),
      pr_number: z.int().nullable().optional(),
      branch: z.string().nullable().optional(),
      base: z.string().nullable().optional(),
    })
    .passthrough(),
});
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;

/** What each event type's `data` carries beyond title, number, status and links (the OpenAPI `webhooks`). */
export const WEBHOOK_EVENT_DOCS: Record<WebhookEventType, string> = {
  'run.created': 'a run was created (REST, CLI, schedule, trigger, forge)',
  'run.waiting_for_input': 'the run asks a question: `data.question`',
  'run.completed': 'the run completed: `data.report_url`',
  'run.failed': 'the run failed: `data.error`',
  'run.cancelled': 'the run was cancelled',
  'run.budget_reached': 'a budget cap was reached: `data.policy` (`pause` or `fail`), `data.reached`, `data.message`',
  'run.pull_request_opened':
    'the run opened a pull request: `data.pr_url`, `data.pr_number`, `data.branch`, `data.base`',
};

/** The request headers of every delivery. */
export const WEBHOOK_HEADERS = {
  'X-Svc-Webhook-Id': 'the webhook id',
  'X-Svc-Delivery': 'the delivery id (the same on every retry and redelivery)',
  'X-Svc-Event': 'the event type, e.g. `run.completed`',
  'X-Svc-Timestamp': 'unix seconds when this attempt was signed',
  'X-Svc-Signature': '`sha256=` and the hex HMAC-SHA256 of `<timestamp>.<body>` with the webhook secret',
} as const;
