import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors, type JWTVerifyResult } from 'jose';
import { z } from 'zod';
import type { Db } from '@svc/db';
import type { SigningKeys } from './keys';
import { RevocationCache } from './revocations';

export type TokenScope = 'session' | 'api' | 'worker' | 'job';

export interface TokenClaims {
  sub: string;
  scope: TokenScope;
  jti: string;
  exp: number;
  iat: number;
  project_id?: string;
  workflow_id?: string;
}

export interface IssuedToken {
  token: string;
  claims: TokenClaims;
  expiresAt: Date;
}

export const MAX_TOKEN_TTL_SECONDS = 365 * 24 * 3600;
export const DEFAULT_TTL_SECONDS: Record<TokenScope, number> = {
  session: 7 * 24 * 3600,
  api: 30 * 24 * 3600,
  worker: MAX_TOKEN_TTL_SECONDS,
  job: 3600,
};

export class TokenError extends Error {}

const ClaimsSchema = z.object({
  sub: z.string().min(1),
  scope: z.enum(['session', 'api', 'worker', 'job']),
  jti: z.string().min(1),
  exp: z.number(),
  iat: z.number(),
  project_id: z.string().min(1).optional(),
  workflow_id: z.string().min(1).optional(),
});

/** Signs and verifies every JWT of the service (ES256 only, `kid` = key thumbprint). */
export class TokenService {
  private readonly revocations: RevocationCache;

  constructor(
    private readonly keys: SigningKeys,
    private readonly db: Db,
    private readonly issuer: string,
    private readonly audience: string,
    private readonly now: () => number = Date.now,
  ) {
    this.revocations = new RevocationCache(db, 2_000, now);
  }

  async issue(input: {
    sub: string;
    scope: TokenScope;
    ttlSeconds?: number;
    projectId?: string;
    workflowId?: string;
  }): Promise<IssuedToken> {
    const ttl = Math.min(input.ttlSeconds ?? DEFAULT_TTL_SECONDS[input.scope], MAX_TOKEN_TTL_SECONDS);
    const iat = Math.floor(this.now() / 1000);
    const claims: TokenClaims = { sub: input.sub, scope: input.scope, jti: randomUUID(), iat, exp: iat + ttl };
    if (input.projectId) claims.project_id = input.projectId;
    if (input.workflowId) claims.workflow_id = input.workflowId;
    const { sub, ...payload } = claims;
    const token = await new SignJWT({ ...payload })
      .setProtectedHeader({ alg: 'ES256', kid: this.keys.kid, typ: 'JWT' })
      .setSubject(sub)
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .sign(this.keys.privateKey);
    return { token, claims, expiresAt: new Date(claims.exp * 1000) };
  }

  /** Verifies algorithm, key id, signature, issuer, audience, expiry, claim types and revocation; throws TokenError. */
  async verify(token: string): Promise<TokenClaims> {
    let result: JWTVerifyResult;
    try {
      result = await jwtVerify(token, this.keys.publicKey, {
        algorithms: ['ES256'],
        issuer: this.issuer,
        audience: this.audience,
        currentDate: new Date(this.now()),
        requiredClaims: ['sub', 'exp', 'iat', 'jti', 'scope'],
      });
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new TokenError('token expired');
      throw new TokenError('invalid token');
    }
    // Only our own key signs (the server, or a worker holding the same PEM): same thumbprint `kid`.
    if (result.protectedHeader.kid !== this.keys.kid) throw new TokenError('invalid token');
    const parsed = ClaimsSchema.safeParse(result.payload);
    if (!parsed.success) throw new TokenError('invalid token claims');
    const claims: TokenClaims = parsed.data;
    if (await this.revocations.isRevoked(claims.jti)) throw new TokenError('token revoked');
    return claims;
  }

  async revoke(claims: Pick<TokenClaims, 'jti' | 'exp'>): Promise<void> {
    this.revocations.remember(claims.jti, new Date(claims.exp * 1000));
    await this.db.revokedToken.upsert({
      where: { jti: claims.jti },
      create: { jti: claims.jti, expires_at: new Date(claims.exp * 1000) },
      update: {},
    });
  }
}
