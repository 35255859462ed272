import type { RequestHandler } from 'express';
import type { Db } from '@svc/db';
import { DomainError } from '../domain/errors';
import { isAdminUser, type Principal } from './principal';
import { TokenError, type TokenClaims, type TokenService } from './tokens';

export const SESSION_COOKIE = 'svc_session';

/** The bearer token or session cookie of a request (bearer wins), or null. */
export function tokenFromRequest(headers: { authorization?: string; cookie?: string }): string | null {
  const auth = headers.authorization;
  if (auth) {
    const match = /^Bearer\s+(\S+)$/i.exec(auth);
    return match?.[1] ?? '';
  }
  for (const part of (headers.cookie ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) return decodeCookieValue(rest.join('='));
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
  adminUsers: Set<string>,
): Promise<Principal | null> {
  switch (claims.scope) {
    case 'worker':
      return { kind: 'worker', claims };
    case 'job':
      if (!claims.project_id || !claims.workflow_id) return null;
      return { kind: 'job', projectId: claims.project_id, workflowId: claims.workflow_id, claims };
    case 'session':
    case 'api': {
      const user = await db.user.findUnique({ where: { id: claims.sub } });
      if (!user) return null;
      return {
        kind: 'user',
        user,
        isAdmin: isAdminUser(user, adminUsers),
        scope: claims.scope,
        projectId: claims.project_id ?? null,
        claims,
      };
    }
  }
}

/** Resolves the caller from a token string; throws `unauthenticated` for a bad one. */
export async function authenticateToken(
  token: string,
  tokens: TokenService,
  db: Db,
  adminUsers: Set<string>,
): Promise<Principal> {
  try {
    const principal = await principalFromClaims(await tokens.verify(token), db, adminUsers);
    if (principal) return principal;
  } catch (error) {
    if (error instanceof TokenError) throw new DomainError('unauthenticated', error.message);
    throw error;
  }
  throw new DomainError('unauthenticated', 'invalid token');
}

/**
 * Sets `req.principal` (null when no valid credentials were sent). A bad credential is kept in
 * `req.authError` and answered 401 by every route that needs a caller; public routes (health, the
 * provider, sign-in itself) still work, so an expired session cookie cannot lock a browser out of login.
 */
export function authenticate(tokens: TokenService, db: Db, adminUsers: Set<string>): RequestHandler {
  return async (req, _res, next) => {
    const token = tokenFromRequest(req.headers);
    req.principal = null;
    req.authError = null;
    if (token !== null) {
      try {
        req.principal = await authenticateToken(token, tokens, db, adminUsers);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        req.authError = error;
      }
    }
    next();
  };
}

export const requireAuth: RequestHandler = (req, _res, next) => {
  principalOf(req);
  next();
};

/** The signed-in caller of a route behind requireAuth (401 with the credential's problem otherwise). */
export function principalOf(req: { principal: Principal | null; authError?: DomainError | null }): Principal {
  if (!req.principal) throw req.authError ?? new DomainError('unauthenticated', 'sign in first');
  return req.principal;
}
