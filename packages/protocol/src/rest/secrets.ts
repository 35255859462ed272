import { z } from 'zod';
import { IdSchema, PageQuerySchema, pageSchema, TimestampSchema } from '../common';
import { SECRET_MAX_LENGTH, SECRET_MIN_LENGTH } from '../secrets';

/** Which runs get an instance secret: every run, or runs of a template whose `.svc-secrets` file names it. */
export const SecretVisibilitySchema = z.enum(['all', 'templates']);
export type SecretVisibility = z.infer<typeof SecretVisibilitySchema>;

export const SecretScopeSchema = z.enum(['project', 'instance']);
export type SecretScope = z.infer<typeof SecretScopeSchema>;

/** A person as the secrets' listing and audit name them. */
export const SecretActorSchema = z.object({ id: IdSchema, name: z.string() });
export type SecretActor = z.infer<typeof SecretActorSchema>;

/** A secret as every answer shows it: its name and history, never its value. */
export const SecretInfoSchema = z.object({
  name: z.string(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  /** who last wrote the value; null when that person is gone */
  updated_by: SecretActorSchema.nullable(),
  /** instance secrets only */
  visibility: SecretVisibilitySchema.optional(),
});
export type SecretInfo = z.infer<typeof SecretInfoSchema>;

export const SecretListSchema = z.object({ items: z.array(SecretInfoSchema) });
export type SecretList = z.infer<typeof SecretListSchema>;

const SecretValueSchema = z
  .string()
  .min(SECRET_MIN_LENGTH, `a secret value has at least ${SECRET_MIN_LENGTH} characters (shorter ones cannot be masked)`)
  .max(SECRET_MAX_LENGTH, `a secret value has at most ${SECRET_MAX_LENGTH} characters`);

export const PutSecretRequestSchema = z.object({ value: SecretValueSchema }).strict();
export type PutSecretRequest = z.infer<typeof PutSecretRequestSchema>;

export const PutInstanceSecretRequestSchema = z
  .object({ value: SecretValueSchema, visibility: SecretVisibilitySchema })
  .strict();
export type PutInstanceSecretRequest = z.infer<typeof PutInstanceSecretRequestSchema>;

export const SecretEventKindSchema = z.enum(['created', 'updated', 'deleted', 'used']);
export type SecretEventKind = z.infer<typeof SecretEventKindSchema>;

/** One entry of the audit: a change (with its actor) or a use (the run that received the secret). */
export const SecretEventSchema = z.object({
  id: IdSchema,
  kind: SecretEventKindSchema,
  name: z.string(),
  scope: SecretScopeSchema,
  actor: SecretActorSchema.nullable(),
  workflow_id: IdSchema.nullable(),
  at: TimestampSchema,
});
export type SecretEvent = z.infer<typeof SecretEventSchema>;

export const SecretEventPageSchema = pageSchema(SecretEventSchema);
export const SecretEventsQuerySchema = PageQuerySchema;
