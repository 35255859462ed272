import { z } from 'zod';
import { IdSchema, MAX_NAME_CHARS, TimestampSchema } from '../common';

/** How a trigger's deliveries are signed: GitHub's `X-Hub-Signature-256`, or a timestamped HMAC. */
export const TriggerFormatSchema = z.enum(['github', 'timestamped']);
export type TriggerFormat = z.infer<typeof TriggerFormatSchema>;

/** Longest requirement template, and longest requirement a delivery may render. */
export const MAX_TRIGGER_TEMPLATE_CHARS = 10_000;
/** Deliveries a trigger may start per minute, at most. */
export const MAX_TRIGGER_RATE_PER_MINUTE = 10_000;
/** An event filter entry: `issues` (every action) or `issues.opened`. */
export const TriggerEventSchema = z
  .string()
  .regex(/^[a-z0-9_]{1,64}(\.[a-z0-9_]{1,64})?$/, 'an event name, optionally with `.action` (e.g. issues.opened)');

/** A trigger as the management routes show it; the secret only at create and rotate. */
export const TriggerSchema = z.object({
  id: IdSchema,
  project_id: IdSchema,
  name: z.string(),
  format: TriggerFormatSchema,
  /** the public URL deliveries are sent to */
  url: z.string(),
  requirement_template: z.string(),
  /** events that start a run; empty: every event except `ping` */
  events: z.array(z.string()),
  template: z.string().nullable(),
  worker_id: z.string().nullable(),
  rate_limit_per_minute: z.int().min(1),
  enabled: z.boolean(),
  created_by: IdSchema,
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type Trigger = z.infer<typeof TriggerSchema>;
export const TriggerListSchema = z.array(TriggerSchema);

/** POST /projects/{id}/triggers and POST /triggers/{id}/rotate-secret: the secret, shown this once. */
export const TriggerWithSecretSchema = TriggerSchema.extend({ secret: z.string() });
export type TriggerWithSecret = z.infer<typeof TriggerWithSecretSchema>;

const TriggerNameSchema = z
  .string()
  .min(1)
  .max(MAX_NAME_CHARS)
  .refine((s) => s.trim().length > 0, { message: 'must not be blank' });
const TemplateTextSchema = z
  .string()
  .min(1)
  .max(MAX_TRIGGER_TEMPLATE_CHARS)
  .refine((s) => s.trim().length > 0, { message: 'must not be blank' });
const RateSchema = z.int().min(1).max(MAX_TRIGGER_RATE_PER_MINUTE);

export const CreateTriggerRequestSchema = z
  .object({
    name: TriggerNameSchema,
    format: TriggerFormatSchema.optional(),
    requirement_template: TemplateTextSchema,
    events: z.array(TriggerEventSchema).max(50).optional(),
    template: z.string().min(1).max(MAX_NAME_CHARS).optional(),
    worker_id: IdSchema.optional(),
    rate_limit_per_minute: RateSchema.optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type CreateTriggerRequest = z.infer<typeof CreateTriggerRequestSchema>;

/** PATCH /triggers/{id}: the fields to change (`null` clears the template or worker). */
export const UpdateTriggerRequestSchema = z
  .object({
    name: TriggerNameSchema.optional(),
    format: TriggerFormatSchema.optional(),
    requirement_template: TemplateTextSchema.optional(),
    events: z.array(TriggerEventSchema).max(50).optional(),
    template: z.string().min(1).max(MAX_NAME_CHARS).nullable().optional(),
    worker_id: IdSchema.nullable().optional(),
    rate_limit_per_minute: RateSchema.optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type UpdateTriggerRequest = z.infer<typeof UpdateTriggerRequestSchema>;

/** One accepted delivery and the run it started. */
export const TriggerDeliverySchema = z.object({
  id: IdSchema,
  trigger_id: IdSchema,
  delivery_id: z.string(),
  event: z.string(),
  workflow_id: IdSchema,
  received_at: TimestampSchema,
});
export type TriggerDelivery = z.infer<typeof TriggerDeliverySchema>;
/** GET /triggers/{id}/deliveries: the latest first. */
export const TriggerDeliveryListSchema = z.array(TriggerDeliverySchema);
export const TriggerDeliveriesQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(200).optional() });

/** GET /workflows/{id}/trigger: the delivery that started a run, with its payload. */
export const WorkflowTriggerSchema = z.object({
  trigger_id: IdSchema,
  trigger_name: z.string(),
  delivery_id: z.string(),
  event: z.string(),
  received_at: TimestampSchema,
  payload: z.unknown(),
});
export type WorkflowTrigger = z.infer<typeof WorkflowTriggerSchema>;

/**
 * POST /hooks/{id}: what a delivery got. `replayed`: the delivery id was seen before and its run is
 * returned, nothing new made; `ignored`: a `ping` or an event the trigger does not start runs for.
 */
export const HookResultSchema = z.object({
  delivery_id: z.string(),
  event: z.string(),
  workflow_id: IdSchema.nullable(),
  replayed: z.boolean(),
  ignored: z.boolean(),
});
export type HookResult = z.infer<typeof HookResultSchema>;

/** The headers of the timestamped form (the GitHub form uses GitHub's own). */
export const TRIGGER_HEADERS = {
  githubSignature: 'X-Hub-Signature-256',
  githubDelivery: 'X-GitHub-Delivery',
  githubEvent: 'X-GitHub-Event',
  timestamp: 'X-Svc-Timestamp',
  signature: 'X-Svc-Signature',
  delivery: 'X-Svc-Delivery',
  event: 'X-Svc-Event',
} as const;
