import { auditContextOf, recordAudit } from '../../audit/record';
import type { AppDeps } from '../../deps';
import type { Handlers } from '../../http/mount';
import { principalOf, SESSION_COOKIE } from '../../auth/authenticate';
import { presentUser } from '../../wire/user';
import { sessionCookieOptions } from '../../auth/session';
import { unauthenticated } from '../../domain/errors';
import { secureCookie } from '../../http/secure-cookie';

/** `GET /svc/api/auth/provider` (public) and `GET /svc/api/me`. */
export function sessionHandlers(deps: AppDeps): Handlers<'getAuthProvider' | 'getMe'> {
  return {
    getAuthProvider: (_req, res) => {
      res.json({ provider: deps.config.auth.provider, login_url: '/svc/auth/login' });
    },
    getMe: (req, res) => {
      const principal = principalOf(req);
      if (principal.kind !== 'user') throw unauthenticated('this token does not belong to a user');
      res.json(presentUser(principal.user, principal.isAdmin));
    },
  };
}

/** `POST /svc/auth/logout`: clears the cookie and revokes the token's `jti`. */
export function logoutHandlers(deps: AppDeps): Handlers<'logout'> {
  return {
    logout: async (req, res) => {
      if (req.principal) {
        await deps.tokens.revoke(req.principal.claims);
        if (req.principal.kind === 'user')
          await recordAudit(deps.db, auditContextOf(req), {
            action: 'auth.sign_out',
            target: { type: 'user', id: req.principal.user.id },
            detail: { scope: req.principal.scope },
          });
      }
      res.clearCookie(SESSION_COOKIE, sessionCookieOptions(secureCookie(req, deps.config.publicUrl)));
      res.status(204).end();
    },
  };
}
