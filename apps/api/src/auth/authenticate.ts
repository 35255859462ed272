import type { Request } from 'express';
import type { Db, User } from '@svc/db';
import { DomainError } from '../domain/errors';
import { isAdminUser, type Principal } from './principal';
import type { AdminList } from './admins';
import { unfinishedWhere } from '../workflows/status';
import { TokenError, type TokenClaims, type TokenService } from './tokens';

export const SESSION_COOKIE = 'svc_session';

/** The bearer token or session cookie of a request (bearer wins), or null. */
export function tokenFromRequest(headers: { authorization?: string; cookie?: string }): string | null {
  const auth = headers.authorization;
  if (auth) {
    const match = /^Bearer\s+(\S+)$/i.exec(auth);
    return match?.[1] ?? '';
  }
  return headers.cookie === undefined ? null : sessionCookieOf(headers.cookie);
}

/**
 * The session cookie's value in a Cookie header: the first pair whose name (leading blanks dropped) is
 * the session cookie's; its value is the rest of the pair after the first `=` (trailing blanks dropped).
 * Scanned in place: every request of a browser sends it.
 */
function sessionCookieOf(cookie: string): string | null {
  for (let start = 0; start < cookie.length; ) {
    const semicolon = cookie.indexOf(';', start);
    const end = semicolon < 0 ? cookie.length : semicolon;
    const pair = cookie.slice(start, end).trim();
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    if (name === SESSION_COOKIE) return decodeCookieValue(equals < 0 ? '' : pair.slice(equals + 1));
    start = end + 1;
  }
  return null;
}

/** A malformed cookie value (`%zz`) is no session at all, so it cannot lock the browser out of login and logout. */
function decodeCookieValue(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

export async function principalFromClaims(
  claims: TokenClaims,
  db: Db,
  adminUsers: AdminList,
  tokens: Pick<TokenService, 'isRevoked'>,
): Promise<Principal | null> {
  switch (claims.scope) {
    case 'worker':
      return workerPrincipal(claims, db, adminUsers);
    case 'job':
      return jobPrincipal(claims, db, adminUsers, tokens);
    case 'session':
    case 'api':
      return personPrincipal(claims, claims.scope, db, adminUsers);
  }
}

async function workerPrincipal(claims: TokenClaims, db: Db, adminUsers: AdminList): Promise<Principal | null> {
  if (!(await workerMinterActs(claims.sub, db, adminUsers))) return null;
  const workers = await db.worker.findMany({ where: { token_jti: claims.jti }, select: { id: true } });
  return { kind: 'worker', claims, workerIds: workers.map((w) => w.id) };
}

async function jobPrincipal(
  claims: TokenClaims,
  db: Db,
  adminUsers: AdminList,
  tokens: Pick<TokenService, 'isRevoked'>,
): Promise<Principal | null> {
  if (!claims.project_id || !claims.workflow_id) return null;
  if (!(await jobStillActs(claims, db, adminUsers, tokens))) return null;
  return { kind: 'job', projectId: claims.project_id, workflowId: claims.workflow_id, claims };
}

async function personPrincipal(
  claims: TokenClaims,
  scope: 'session' | 'api',
  db: Db,
  adminUsers: AdminList,
): Promise<Principal | null> {
  const user = await db.user.findUnique({ where: { id: claims.sub } });
  if (!user) return null;
  const principal = userPrincipal(user, claims, scope, adminUsers);
  // An api token narrowed to a project acts only while its user may still see that project.
  if (principal.projectId && !principal.isAdmin && !(await isLiveMember(db, principal.projectId, user.id))) return null;
  return principal;
}

/** The principal of a session or api token's user (its project narrowing not yet checked against the database). */
export function userPrincipal(
  user: User,
  claims: TokenClaims,
  scope: 'session' | 'api',
  adminUsers: AdminList,
): Extract<Principal, { kind: 'user' }> {
  return {
    kind: 'user',
    user,
    isAdmin: isAdminUser(user, adminUsers),
    scope,
    projectId: claims.project_id ?? null,
    claims,
  };
}

/**
 * A worker token (`sub` = `worker:<user id>`, minted by POST /token) acts only while its minter is
 * still an administrator, checked on every use like a job token's minter (issue 21, finding 5).
 */
async function workerMinterActs(sub: string, db: Db, adminUsers: AdminList): Promise<boolean> {
  if (!sub.startsWith('worker:')) return false;
  const user = await db.user.findUnique({ where: { id: sub.slice('worker:'.length) } });
  return user !== null && isAdminUser(user, adminUsers);
}

async function isLiveMember(db: Db, projectId: string, userId: string): Promise<boolean> {
  const member = await db.projectMember.findFirst({
    where: { project_id: projectId, user_id: userId, project: { deleted_at: null } },
    select: { role: true },
  });
  return member !== null;
}

/**
 * A job token is checked against live state on every use: its workflow still exists in its project and
 * is unfinished, and the principal that minted it could still act there (a user still exists and is a
 * member or administrator; a worker token's minter is still an administrator; the minting session or
 * worker token is not revoked). A token without `minted_by` was signed by a holder of the signing key
 * itself (a worker's `jwt_private_key`).
 */
async function jobStillActs(
  claims: TokenClaims,
  db: Db,
  adminUsers: AdminList,
  tokens: Pick<TokenService, 'isRevoked'>,
): Promise<boolean> {
  const workflow = await db.workflow.findFirst({
    where: { id: claims.workflow_id, project_id: claims.project_id, ...unfinishedWhere, project: { deleted_at: null } },
    select: { id: true },
  });
  if (!workflow) return false;
  if (claims.minted_jti && (await tokens.isRevoked(claims.minted_jti))) return false;
  const mintedBy = claims.minted_by;
  if (mintedBy === undefined) return true;
  if (mintedBy.startsWith('worker:')) return workerMinterActs(mintedBy, db, adminUsers);
  const user = await db.user.findUnique({ where: { id: mintedBy } });
  if (!user) return false;
  return isAdminUser(user, adminUsers) || isLiveMember(db, claims.project_id!, user.id);
}

/** The claims of a valid token; throws `unauthenticated` for a bad one. */
async function verifiedClaims(token: string, tokens: TokenService): Promise<TokenClaims> {
  try {
    return await tokens.verify(token);
  } catch (error) {
    throw refusalOf(error);
  }
}

/** A bad token's error as the contract's 401; any other error is thrown on. */
function refusalOf(error: unknown): DomainError {
  if (error instanceof TokenError) return new DomainError('unauthenticated', error.message);
  throw error;
}

/** Resolves the caller from a token string; throws `unauthenticated` for a bad one. */
export async function authenticateToken(
  token: string,
  tokens: TokenService,
  db: Db,
  adminUsers: AdminList,
): Promise<Principal> {
  const principal = await principalFromClaims(await verifiedClaims(token, tokens), db, adminUsers, tokens);
  if (!principal) throw unknownCaller();
  return principal;
}

/** What a token whose subject is gone (or no longer acts) is answered. */
export const unknownCaller = () => new DomainError('unauthenticated', 'invalid token');

/**
 * A person's valid session or api token without project narrowing, whose user is not read yet: a handler
 * that joins the caller (reads/access.ts) reads the user together with what it answers.
 */
export interface UserToken {
  claims: TokenClaims;
  scope: 'session' | 'api';
}

/**
 * Finds the caller of a request (http/mount.ts runs it before each operation's handler): sets
 * `req.principal` (null when no credentials were sent) and keeps a bad credential in `req.authError`,
 * answered 401 by every operation that needs a caller; public operations (health, the provider, sign-in
 * itself) still work, so an expired session cookie cannot lock a browser out of login. With `joinsUser`,
 * a person's token without project narrowing is only verified (`req.userToken`).
 */
export type Authenticator = (req: Request, options: { joinsUser: boolean }) => Promise<void>;

/** The claims of a valid token; for a bad one, null with the refusal kept in `req.authError`. */
async function verifiedOrRefused(req: Request, token: string, tokens: TokenService): Promise<TokenClaims | null> {
  try {
    return await tokens.verify(token);
  } catch (error) {
    req.authError = refusalOf(error);
    return null;
  }
}

export function authenticator(tokens: TokenService, db: Db, adminUsers: AdminList): Authenticator {
  return async (req, { joinsUser }) => {
    const token = tokenFromRequest(req.headers);
    req.principal = null;
    req.authError = null;
    req.userToken = null;
    if (token === null) return;
    const claims = await verifiedOrRefused(req, token, tokens);
    if (!claims) return;
    try {
      const { scope } = claims;
      if (joinsUser && (scope === 'session' || scope === 'api') && claims.project_id === undefined) {
        req.userToken = { claims, scope };
        return;
      }
      req.principal = await principalFromClaims(claims, db, adminUsers, tokens);
      if (!req.principal) req.authError = unknownCaller();
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      req.authError = error;
    }
  };
}

/** Refuses (401) a request without a caller: neither a principal nor a person's token left to its handler. */
export function requireCaller(req: Pick<Request, 'principal' | 'authError' | 'userToken'>): void {
  if (!req.userToken) principalOf(req);
}

/** The signed-in caller of an operation that requires one (401 with the credential's problem otherwise). */
export function principalOf(req: { principal: Principal | null; authError?: DomainError | null }): Principal {
  if (!req.principal) throw req.authError ?? new DomainError('unauthenticated', 'sign in first');
  return req.principal;
}
