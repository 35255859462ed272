import type { Request } from 'express';
import OAuth2Strategy from 'passport-oauth2';
import type { SignedCookieStateStore } from './state-store';
import type { ProviderVariant, TokenResult } from './variants';

type TokenExchange = (
  code: string,
  params: Record<string, string>,
  callback: (err: unknown, accessToken?: string, refreshToken?: string, results?: TokenResult) => void,
) => void;

/**
 * passport-oauth2 for both provider kinds: passport builds the authorize redirect (state + PKCE S256
 * through the signed-cookie store) and checks the state on the callback; the variant exchanges the
 * code and loads the identity. The verified "user" is an ExternalIdentity, stored by the route.
 */
export class ProviderStrategy extends OAuth2Strategy {
  constructor(
    private readonly variant: ProviderVariant,
    store: SignedCookieStateStore,
  ) {
    super(
      {
        authorizationURL: variant.config.authorizeUrl,
        tokenURL: variant.config.tokenUrl,
        clientID: variant.config.clientId,
        clientSecret: variant.config.clientSecret,
        scope: variant.config.scopes,
        scopeSeparator: variant.scopeSeparator,
        pkce: variant.config.pkce,
        state: true,
        store: store.asPassportStore(),
        skipUserProfile: true, // the SSO's user info needs the token answer's open_id: loaded in verify
      },
      // Five parameters, so passport-oauth2 passes the token endpoint's answer as `results`.
      (
        _accessToken: string,
        _refreshToken: string,
        results: TokenResult,
        _profile: unknown,
        done: OAuth2Strategy.VerifyCallback,
      ) => {
        variant.fetchIdentity(results).then(
          (identity) => done(null, identity),
          (error: unknown) => done(error),
        );
      },
    );
    this.name = variant.kind;
    // fetch with a timeout and typed errors (and the SSO's client_key) instead of node-oauth's request.
    const exchange: TokenExchange = (code, params, callback) => {
      variant.exchangeCode(code, params).then(
        (token) => callback(null, token.accessToken, token.refreshToken, token),
        (error: unknown) => callback(error),
      );
    };
    (this._oauth2 as unknown as { getOAuthAccessToken: TokenExchange }).getOAuthAccessToken = exchange;
  }

  override authenticate(req: Request, options?: object): void {
    const clientParam = this.variant.clientParam;
    if (clientParam !== 'client_id') {
      // passport-oauth2 always writes `client_id`; `this` is passport's per-request copy of the strategy.
      const redirect = this.redirect.bind(this);
      this.redirect = (url: string, status?: number) =>
        redirect(renameQueryParam(url, 'client_id', clientParam), status);
    }
    super.authenticate(req, options);
  }
}

function renameQueryParam(url: string, from: string, to: string): string {
  const parsed = new URL(url);
  const value = parsed.searchParams.get(from);
  if (value === null) return url;
  parsed.searchParams.delete(from);
  parsed.searchParams.set(to, value);
  return parsed.href;
}
