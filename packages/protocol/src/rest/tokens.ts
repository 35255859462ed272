import { z } from 'zod';
import { IdSchema, TimestampSchema } from '../common';

/** A recorded api or worker token (`GET /tokens`); never the token itself, which is shown once at minting. */
export const ApiTokenSchema = z.object({
  /** the token's `jti` */
  id: IdSchema,
  name: z.string(),
  scope: z.enum(['api', 'worker']),
  project_id: IdSchema.nullable(),
  created_at: TimestampSchema,
  expires_at: TimestampSchema,
  revoked_at: TimestampSchema.nullable(),
  /** whose token it is: only in an administrator's `?all=1` list */
  user_login: z.string().optional(),
});
export type ApiToken = z.infer<typeof ApiTokenSchema>;

/** GET /tokens: a plain array, newest first. */
export const ApiTokenListSchema = z.array(ApiTokenSchema);

/** `GET /tokens?all=1`: an administrator lists everyone's tokens. */
export const TokenListQuerySchema = z.object({ all: z.enum(['0', '1']).optional() }).strict();
export type TokenListQuery = z.infer<typeof TokenListQuerySchema>;
