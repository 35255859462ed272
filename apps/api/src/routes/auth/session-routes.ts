import { Router } from 'express';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth, SESSION_COOKIE } from '../../auth/authenticate';
import { presentUser } from '../../wire/user';
import { sessionCookieOptions } from '../../auth/session';
import { unauthenticated } from '../../domain/errors';
import { secureCookie } from '../../http/secure-cookie';

/** `/svc/api/auth/provider` (public) and `/svc/api/me`. */
export function authApiRouter(deps: AppDeps): Router {
  const router = Router();
  router.get('/auth/provider', (_req, res) => {
    res.json({ provider: deps.config.auth.provider, login_url: '/svc/auth/login' });
  });
  router.get('/me', requireAuth, (req, res) => {
    const principal = principalOf(req);
    if (principal.kind !== 'user') throw unauthenticated('this token does not belong to a user');
    res.json(presentUser(principal.user, principal.isAdmin));
  });
  return router;
}

/** `POST /svc/auth/logout`: clears the cookie and revokes the token's `jti`. */
export function logoutRouter(deps: AppDeps): Router {
  const router = Router();
  router.post('/logout', async (req, res) => {
    if (req.principal) await deps.tokens.revoke(req.principal.claims);
    res.clearCookie(SESSION_COOKIE, sessionCookieOptions(secureCookie(req, deps.config.publicUrl)));
    res.status(204).end();
  });
  return router;
}
