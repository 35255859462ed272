import { z } from 'zod';
import { IdSchema, TimestampSchema } from '../common';

export const AuthProviderKindSchema = z.enum(['oauth2', 'sso', 'dev']);
export type AuthProviderKind = z.infer<typeof AuthProviderKindSchema>;

/** GET /svc/api/auth/provider */
export const AuthProviderResponseSchema = z.object({
  provider: AuthProviderKindSchema,
  login_url: z.string(),
});
export type AuthProviderResponse = z.infer<typeof AuthProviderResponseSchema>;

/** POST /svc/auth/dev-login (JSON or form-encoded) */
export const DevLoginRequestSchema = z.object({ login: z.string().trim().min(1).max(100) }).strict();
export type DevLoginRequest = z.infer<typeof DevLoginRequestSchema>;

/** GET /svc/api/me */
export const UserSchema = z.object({
  id: IdSchema,
  login: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  avatar_url: z.string().nullable(),
  /** listed in ADMIN_USERS: sees every project */
  is_admin: z.boolean(),
  created_at: TimestampSchema.optional(),
});
export type User = z.infer<typeof UserSchema>;

export const TOKEN_TTL_MIN_SECONDS = 60;
export const TOKEN_TTL_MAX_SECONDS = 31_536_000;
export const TOKEN_NAME_MAX_CHARS = 100;

/** POST /svc/api/token; the server sets sub/aud/iss itself. */
export const TokenRequestSchema = z
  .object({
    scope: z.enum(['api', 'worker', 'job']).optional(),
    ttl_seconds: z.int().min(TOKEN_TTL_MIN_SECONDS).max(TOKEN_TTL_MAX_SECONDS).optional(),
    project_id: IdSchema.optional(),
    workflow_id: IdSchema.optional(),
    /** a name to recognise an api or worker token by in `GET /tokens` (e.g. "CI of shop") */
    name: z.string().trim().max(TOKEN_NAME_MAX_CHARS).optional(),
  })
  .strict()
  .refine((b) => (b.scope === 'job') === (b.workflow_id !== undefined), {
    path: ['workflow_id'],
    message: 'workflow_id is required with scope "job" and allowed only with it',
  });
export type TokenRequest = z.infer<typeof TokenRequestSchema>;

export const TokenResponseSchema = z.object({
  token: z.string(),
  token_type: z.literal('Bearer'),
  expires_at: TimestampSchema,
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

/** `GET /.well-known/jwks.json`: the public ES256 key(s) as a JSON Web Key Set. */
export const JwksSchema = z.object({
  keys: z.array(
    z
      .object({
        kty: z.literal('EC'),
        crv: z.literal('P-256'),
        x: z.string(),
        y: z.string(),
        kid: z.string(),
        alg: z.literal('ES256'),
        use: z.literal('sig'),
      })
      .loose(),
  ),
});
export type Jwks = z.infer<typeof JwksSchema>;
