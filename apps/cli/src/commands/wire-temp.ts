// TEMPORARY: the secrets helper's schemas (RULES.md "API shapes"), until @svc/protocol exports them.
import { z } from 'zod';
import { pageSchema, TimestampSchema } from '@svc/protocol';

const ActorSchema = z.object({ id: z.string(), name: z.string() }).nullable();

export const SecretInfoSchema = z.object({
  name: z.string(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  updated_by: ActorSchema,
  visibility: z.enum(['all', 'templates']).optional(),
});
export type SecretInfo = z.infer<typeof SecretInfoSchema>;
export const SecretListSchema = z.object({ items: z.array(SecretInfoSchema) });
export const SecretEventPageSchema = pageSchema(
  z.object({
    id: z.string(),
    kind: z.enum(['created', 'updated', 'deleted', 'used']),
    name: z.string(),
    scope: z.enum(['project', 'instance']),
    actor: ActorSchema,
    workflow_id: z.string().nullable(),
    at: TimestampSchema,
  }),
);
export type SecretEvent = z.infer<typeof SecretEventPageSchema>['items'][number];
