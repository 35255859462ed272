import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { SignJWT, jwtVerify } from 'jose';
import type OAuth2Strategy from 'passport-oauth2';
import type { SigningKeys } from '../keys';
import { secureCookie } from '../../http/secure-cookie';

export const OAUTH_STATE_COOKIE = 'svc_oauth_state';
/** The cookie is sent back only to the callback, and only for ten minutes. */
export const OAUTH_STATE_COOKIE_PATH = '/svc/auth/callback';
export const OAUTH_STATE_TTL_SECONDS = 600;
// A distinct type and audience: a state cookie is never accepted as an API token, nor the reverse.
const STATE_TYPE = 'svc-oauth-state+jwt';
const STATE_AUDIENCE = 'svc:oauth-state';

/** Why the callback's state was refused (passed to passport's `fail`). */
export interface StateFailure {
  reason: 'state';
  message: string;
}

type StoreCallback = (err: Error | null, state?: string) => void;
type VerifyCallback = (err: Error | null, ok: string | boolean, info?: StateFailure) => void;

/**
 * passport-oauth2 state store without server-side sessions: the random `state` and the PKCE verifier
 * travel in an HttpOnly cookie signed (ES256, JWS) with the server's key, which binds them to the browser
 * that started the sign-in. passport picks the five-argument `store` by arity, passing the verifier.
 */
export class SignedCookieStateStore {
  constructor(
    private readonly keys: SigningKeys,
    private readonly provider: string,
    /** PUBLIC_URL, read per request: an https one makes the cookie Secure behind any proxy */
    private readonly publicUrl: () => string = () => '',
  ) {}

  store(req: Request, verifier: string | undefined, _state: unknown, _meta: unknown, done: StoreCallback): void {
    const state = randomBytes(32).toString('base64url');
    const claims: Record<string, string> = { st: state, provider: this.provider };
    if (verifier) claims.cv = verifier;
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: this.keys.kid, typ: STATE_TYPE })
      .setAudience(STATE_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${OAUTH_STATE_TTL_SECONDS}s`)
      .sign(this.keys.privateKey)
      .then((cookie) => {
        req.res!.cookie(OAUTH_STATE_COOKIE, cookie, {
          httpOnly: true,
          sameSite: 'lax', // sent on the provider's top-level redirect back to us
          secure: secureCookie(req, this.publicUrl()),
          path: OAUTH_STATE_COOKIE_PATH,
          maxAge: OAUTH_STATE_TTL_SECONDS * 1000,
        });
        done(null, state);
      }, done);
  }

  /** Answers the PKCE verifier (or `true` without PKCE) when the state matches the cookie. */
  verify(req: Request, providedState: unknown, _meta: unknown, done: VerifyCallback): void {
    const cookie: unknown = req.cookies?.[OAUTH_STATE_COOKIE];
    const fail = (message: string) => done(null, false, { reason: 'state', message });
    if (typeof cookie !== 'string' || !cookie) return fail('the sign-in cookie is missing or expired; start again');
    jwtVerify(cookie, this.keys.publicKey, { algorithms: ['ES256'], audience: STATE_AUDIENCE, typ: STATE_TYPE }).then(
      ({ payload }) => {
        if (payload.provider !== this.provider || typeof payload.st !== 'string')
          return fail('the sign-in cookie is not valid; start again');
        if (typeof providedState !== 'string' || !sameText(providedState, payload.st))
          return fail('the sign-in state does not match; start again');
        done(null, typeof payload.cv === 'string' ? payload.cv : true);
      },
      () => fail('the sign-in cookie is not valid or expired; start again'),
    );
  }

  /** The shape passport-oauth2's options expect (its typings know only the session-era arities). */
  asPassportStore(): OAuth2Strategy.StateStore {
    return this as unknown as OAuth2Strategy.StateStore;
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
