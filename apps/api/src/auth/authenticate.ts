import type { RequestHandler } from 'express';
import type { Db } from '@svc/db';
import { AppError } from '../http/errors';
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
    if (name === SESSION_COOKIE) return decodeURIComponent(rest.join('='));
  }
  return null;
}

export async function principalFromClaims(claims: TokenClaims, db: Db, adminUsers: Set<string>): Promise<Principal | null> {
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
export async function authenticateToken(token: string, tokens: TokenService, db: Db, adminUsers: Set<string>): Promise<Principal> {
  try {
    const principal = await principalFromClaims(await tokens.verify(token), db, adminUsers);
    if (principal) return principal;
  } catch (error) {
    if (error instanceof TokenError) throw new AppError('unauthenticated', error.message);
    throw error;
  }
  throw new AppError('unauthenticated', 'invalid token');
}

/** Sets `req.principal` (null when no credentials were sent); a bad credential is a 401 at once. */
export function authenticate(tokens: TokenService, db: Db, adminUsers: Set<string>): RequestHandler {
  return async (req, _res, next) => {
    const token = tokenFromRequest(req.headers);
    req.principal = token === null ? null : await authenticateToken(token, tokens, db, adminUsers);
    next();
  };
}

export const requireAuth: RequestHandler = (req, _res, next) => {
  if (!req.principal) throw new AppError('unauthenticated', 'sign in first');
  next();
};

/** The signed-in caller of a route behind requireAuth. */
export function principalOf(req: { principal: Principal | null }): Principal {
  if (!req.principal) throw new AppError('unauthenticated', 'sign in first');
  return req.principal;
}
