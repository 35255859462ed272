import { recordSignIn } from '../../audit/record';
import type { Request, Response } from 'express';
import cookieParser from 'cookie-parser';
import { Passport, type AuthenticateOptions } from 'passport';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationInput } from '../../http/mount';
import { ConfigError } from '../../config';
import { DomainError, invalidInput, notFound, unauthenticated } from '../../domain/errors';
import { reservedLoginsOf, startSession, upsertUser, type ExternalIdentity } from '../../auth/session';
import {
  OAUTH_STATE_COOKIE,
  OAUTH_STATE_COOKIE_PATH,
  SignedCookieStateStore,
  type StateFailure,
} from '../../auth/oauth/state-store';
import { ProviderStrategy } from '../../auth/oauth/strategy';
import { variantFor } from '../../auth/oauth/variants';
import { safeCode } from '../../auth/oauth/provider-http';
import { secureCookie } from '../../http/secure-cookie';

export const OAUTH_CALLBACK_PATH = '/svc/auth/callback';

/**
 * `GET /svc/auth/login` (redirect to the provider, state + PKCE bound to a signed cookie) and
 * `GET /svc/auth/callback` (state checked, code exchanged, user upserted, session started, 303 to the web app).
 */
export function oauthHandlers(deps: AppDeps): Handlers<'startLogin' | 'finishLogin'> {
  const kind = deps.config.auth.provider;
  const providerConfig = kind === 'dev' ? null : deps.config.auth[kind];
  if (kind === 'dev' || !providerConfig) throw new ConfigError(`AUTH_PROVIDER=${kind} has no OAuth configuration`);
  const authenticator = new Passport();
  authenticator.use(
    kind,
    new ProviderStrategy(
      variantFor(kind, providerConfig),
      new SignedCookieStateStore(deps.keys, kind, () => deps.config.publicUrl),
    ),
  );
  // Read per request: the callback must be the public address the provider has registered.
  const options = (): AuthenticateOptions & { callbackURL: string } => ({
    session: false,
    callbackURL: `${deps.config.publicUrl}${OAUTH_CALLBACK_PATH}`,
  });

  /** Runs the code exchange; resolves with the provider's identity or rejects with a typed DomainError. */
  const completeSignIn = (req: Request, res: Response) =>
    new Promise<ExternalIdentity>((resolve, reject) => {
      const done = (error: unknown, identity?: unknown, info?: unknown) => {
        if (error) reject(signInError(error));
        else if (!identity)
          reject(
            invalidInput(
              (info as StateFailure | undefined)?.message ?? 'the sign-in state does not match; start again',
            ),
          );
        else resolve(identity as ExternalIdentity);
      };
      authenticator.authenticate(kind, options(), done)(req, res, (error?: unknown) =>
        reject(error ?? new DomainError('internal', 'sign-in did not complete')),
      );
    });

  const cookies = cookieParser();
  const startLogin = {
    before: [
      cookies,
      (req: Request, res: Response, next: (error?: unknown) => void) =>
        authenticator.authenticate(kind, options())(req, res, next),
    ],
    // passport answers (a redirect to the provider) or passes an error on; a strategy that passes is no endpoint
    handle: () => {
      throw notFound('no such endpoint');
    },
  };
  const finishLogin = {
    before: [cookies],
    handle: async (req: Request, res: Response, input: OperationInput<'finishLogin'>) => {
      // The state cookie is single use: cleared whatever the outcome.
      res.clearCookie(OAUTH_STATE_COOKIE, {
        path: OAUTH_STATE_COOKIE_PATH,
        httpOnly: true,
        sameSite: 'lax',
        secure: secureCookie(req, deps.config.publicUrl),
      });
      const query = input.query();
      if (query.error !== undefined)
        throw unauthenticated(`sign-in was not completed: the provider answered ${safeCode(query.error)}`);
      if (!query.state) throw invalidInput('query.state: missing; start again at /svc/auth/login');
      if (!query.code) throw invalidInput('query.code: missing');
      let identity: ExternalIdentity;
      try {
        identity = await completeSignIn(req, res);
      } catch (error) {
        req.log.warn({ err: error, provider: kind }, 'oauth sign-in failed');
        throw error;
      }
      const user = await upsertUser(deps.db, identity, reservedLoginsOf(deps));
      await startSession(deps, res, user.id, secureCookie(req, deps.config.publicUrl));
      await recordSignIn(deps.db, req, user, kind);
      await recordSignIn(deps.db, req, user, kind);
      req.log.info({ user_id: user.id, provider: kind }, 'signed in');
      res.redirect(303, deps.config.webAppUrl);
    },
  };
  return { startLogin, finishLogin };
}

/** passport-oauth2 wraps token-exchange errors in InternalOAuthError (`oauthError`); unwrap ours. */
function signInError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const inner = (error as { oauthError?: unknown }).oauthError;
  if (inner instanceof DomainError) return inner;
  return new DomainError('unavailable', 'sign-in failed: the provider answered unexpectedly');
}
