import { randomUUID, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { calculateJwkThumbprint, decodeJwt, SignJWT, type JWK } from 'jose';
import type { ServerApi } from '../api/server-api';

/** Lifetime of a job token (docs/decisions/0001-tokens.md: job 1 hour). */
export const JOB_TOKEN_TTL_SECONDS = 3600;

export interface JobToken {
  token: string;
  /** The workflow's project, when known (from the request or from the server-issued token's claims). */
  projectId: string | undefined;
}

export interface JobTokenRequest {
  workflowId: string;
  projectId?: string;
  /** The command's signal: a request the server cannot answer now is retried until it aborts. */
  signal?: AbortSignal;
}

/** Where SVC_JWT comes from: the worker's own key, or the server. */
export interface JobTokenSource {
  tokenFor(request: JobTokenRequest): Promise<JobToken>;
}

export class JobTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobTokenError';
  }
}

/** Signs `job` tokens with the worker's `jwt_private_key` (ES256, kid = RFC 7638 thumbprint). */
export class LocalJobTokenSigner implements JobTokenSource {
  private constructor(
    private readonly key: KeyObject,
    readonly kid: string,
    private readonly issuer: string,
    private readonly audience: string,
  ) {}

  static async fromPem(pem: string, claims: { issuer: string; audience: string }): Promise<LocalJobTokenSigner> {
    let key: KeyObject;
    try {
      key = createPrivateKey(pem);
    } catch (err) {
      throw new JobTokenError(`jwt_private_key is not a readable PEM private key: ${(err as Error).message}`);
    }
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new JobTokenError('jwt_private_key must be an EC P-256 key (ES256)');
    }
    const publicJwk = createPublicKey(key).export({ format: 'jwk' }) as JWK;
    const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
    return new LocalJobTokenSigner(key, kid, claims.issuer, claims.audience);
  }

  static async fromPemFile(file: string, claims: { issuer: string; audience: string }): Promise<LocalJobTokenSigner> {
    let pem: string;
    try {
      pem = readFileSync(file, 'utf8');
    } catch (err) {
      throw new JobTokenError(
        `jwt_private_key ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    return LocalJobTokenSigner.fromPem(pem, claims);
  }

  async tokenFor(request: JobTokenRequest): Promise<JobToken> {
    const extra: Record<string, string> = { scope: 'job', workflow_id: request.workflowId };
    if (request.projectId) extra.project_id = request.projectId;
    const token = await new SignJWT(extra)
      .setProtectedHeader({ alg: 'ES256', kid: this.kid, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setSubject(`job:${request.workflowId}`)
      .setIssuedAt()
      .setExpirationTime(`${JOB_TOKEN_TTL_SECONDS}s`)
      .setJti(randomUUID())
      .sign(this.key);
    return { token, projectId: request.projectId };
  }
}

/** Asks the server for `job` tokens and reuses each until five minutes before it expires. */
export class ServerJobTokens implements JobTokenSource {
  private readonly cache = new Map<string, { token: JobToken; expiresAt: number }>();

  constructor(
    private readonly api: Pick<ServerApi, 'requestJobToken'>,
    private readonly now: () => number = Date.now,
  ) {}

  async tokenFor(request: JobTokenRequest): Promise<JobToken> {
    const cached = this.cache.get(request.workflowId);
    if (cached && cached.expiresAt - 5 * 60_000 > this.now()) return cached.token;
    const res = await this.api.requestJobToken(request.workflowId, request.signal);
    let claimProject: unknown;
    try {
      claimProject = decodeJwt(res.token).project_id;
    } catch {
      claimProject = undefined;
    }
    const token: JobToken = {
      token: res.token,
      projectId: request.projectId ?? (typeof claimProject === 'string' ? claimProject : undefined),
    };
    this.cache.set(request.workflowId, { token, expiresAt: Date.parse(res.expires_at) });
    return token;
  }
}
