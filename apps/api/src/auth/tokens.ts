import { randomUUID } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import { SignJWT, jwtVerify, errors as joseErrors, type JWTVerifyResult } from 'jose';
import { z } from 'zod';
import type { Db } from '@svc/db';
import type { SigningKeys } from './keys';
import { RevocationCache } from './revocations';
import { on, type ClusterBus } from '../cluster/bus';

export type TokenScope = 'session' | 'api' | 'worker' | 'job';

export interface TokenClaims {
  sub: string;
  scope: TokenScope;
  jti: string;
  exp: number;
  iat: number;
  project_id?: string;
  workflow_id?: string;
  /** job tokens the server mints: who minted it (`sub` of the minting token) and that token's `jti` */
  minted_by?: string;
  minted_jti?: string;
}

export interface IssuedToken {
  token: string;
  claims: TokenClaims;
  expiresAt: Date;
}

export const MAX_TOKEN_TTL_SECONDS = 365 * 24 * 3600;
/** A job token (SVC_JWT) is short-lived: 1 hour by default, 24 hours at most, whoever signs it. */
export const MAX_JOB_TTL_SECONDS = 24 * 3600;
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
  minted_by: z.string().min(1).optional(),
  minted_jti: z.string().min(1).optional(),
});

export interface TokenServiceDeps {
  keys: SigningKeys;
  db: Db;
  issuer: string;
  audience: string;
  /**
   * Tokens whose signature and claims were verified, by their text (`verifiedTokenCache`): a request
   * with a known token skips the ECDSA verification, the largest CPU cost of a cheap read (issue 11).
   */
  verified: LRUCache<string, TokenClaims>;
  now?: () => number;
  /** the other API replicas: a revocation made here reaches their caches at once */
  bus?: ClusterBus;
}

/** Signs and verifies every JWT of the service (ES256 only, `kid` = key thumbprint). */
export class TokenService {
  private readonly revocations: RevocationCache;
  private readonly keys: SigningKeys;
  private readonly db: Db;
  private readonly issuer: string;
  private readonly audience: string;
  private readonly verified: LRUCache<string, TokenClaims>;
  private readonly now: () => number;
  private readonly bus: ClusterBus | undefined;

  constructor(deps: TokenServiceDeps) {
    this.keys = deps.keys;
    this.db = deps.db;
    this.issuer = deps.issuer;
    this.audience = deps.audience;
    this.verified = deps.verified;
    this.now = deps.now ?? Date.now;
    this.bus = deps.bus;
    this.revocations = new RevocationCache(this.db, 2_000, this.now);
    if (this.bus) on(this.bus, 'revoked', (m) => this.revocations.remember(m.jti, new Date(m.expires_at)));
  }

  async issue(input: {
    sub: string;
    scope: TokenScope;
    ttlSeconds?: number;
    projectId?: string;
    workflowId?: string;
    /** the token this one is derived from: it never outlives it, and dies with it */
    mintedBy?: Pick<TokenClaims, 'sub' | 'jti' | 'exp'>;
  }): Promise<IssuedToken> {
    const max = input.scope === 'job' ? MAX_JOB_TTL_SECONDS : MAX_TOKEN_TTL_SECONDS;
    const ttl = Math.min(input.ttlSeconds ?? DEFAULT_TTL_SECONDS[input.scope], max);
    const iat = Math.floor(this.now() / 1000);
    const exp = Math.min(iat + ttl, input.mintedBy?.exp ?? Number.POSITIVE_INFINITY);
    const claims: TokenClaims = { sub: input.sub, scope: input.scope, jti: randomUUID(), iat, exp };
    if (input.projectId) claims.project_id = input.projectId;
    if (input.workflowId) claims.workflow_id = input.workflowId;
    if (input.mintedBy) {
      claims.minted_by = input.mintedBy.sub;
      claims.minted_jti = input.mintedBy.jti;
    }
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
    const claims = this.verified.get(token) ?? (await this.verifySignedClaims(token));
    // Time and revocation are checked on every use, also for a token whose signature is known good
    // (the entry's time to live ends with the token, but on the cache's clock, not `now`).
    if (claims.exp <= Math.floor(this.now() / 1000)) {
      this.verified.delete(token);
      throw new TokenError('token expired');
    }
    // answered without a wait while the revocation list is fresh: this runs on every request
    const revoked = this.revocations.revokedIfFresh(claims.jti) ?? (await this.revocations.isRevoked(claims.jti));
    if (revoked) throw new TokenError('token revoked');
    return { ...claims };
  }

  /**
   * The signature and claim checks, which depend on the token's text and this service's key only: a
   * token that passed them is remembered until it expires (bounded, least recently used out).
   */
  private async verifySignedClaims(token: string): Promise<TokenClaims> {
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
    // Also a job token a worker signed with the shared key: whoever signs, SVC_JWT is short-lived.
    if (claims.scope === 'job' && claims.exp - claims.iat > MAX_JOB_TTL_SECONDS)
      throw new TokenError('job token lifetime too long');
    this.verified.set(token, claims, { ttl: Math.max(1, claims.exp * 1000 - this.now()) });
    return claims;
  }

  /** Whether a token id was revoked (e.g. the session a job token was minted from). */
  isRevoked(jti: string): Promise<boolean> {
    return this.revocations.isRevoked(jti);
  }

  /** Learns the revocations other replicas made, now (their listeners fire). */
  refreshRevocations(): Promise<void> {
    return this.revocations.refresh();
  }

  /** Calls `listener` with every token id revoked from now on (here at once; other replicas' on sync). */
  onRevoked(listener: (jti: string) => void): () => void {
    return this.revocations.onRevoked(listener);
  }

  async revoke(claims: Pick<TokenClaims, 'jti' | 'exp'>): Promise<void> {
    this.revocations.remember(claims.jti, new Date(claims.exp * 1000));
    await this.db.revokedToken.upsert({
      where: { jti: claims.jti },
      create: { jti: claims.jti, expires_at: new Date(claims.exp * 1000) },
      update: {},
    });
    // Every replica's cache learns it now; the caller answers once the message is with PostgreSQL.
    this.bus?.publish({ type: 'revoked', jti: claims.jti, expires_at: claims.exp * 1000 });
    await this.bus?.flush();
  }
}
