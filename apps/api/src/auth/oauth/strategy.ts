import type { Request } from 'express';
import { OAuth2, type oauth2tokenCallback } from 'oauth';
import OAuth2Strategy from 'passport-oauth2';
import type { SignedCookieStateStore } from './state-store';
import type { ProviderVariant, TokenResult } from './variants';

/**
 * The `oauth` package's OAuth2 client (the one passport-oauth2 drives) with the code exchange done by
 * the variant. node-oauth's own exchange has no time-out, always names the client `client_id`, reads
 * `access_token` only at the top level (the SSO wraps it in `data` and refuses with `error_code` under
 * HTTP 200) and fails with untyped `{statusCode, data}` objects, so a refusal (401) could not be told
 * from an unavailable provider (503). The variant's fetch does all of that; passport-oauth2 passes its
 * error through (wrapped as `oauthError`) and its answer to the verify callback as `results`.
 */
class VariantOAuth2Client extends OAuth2 {
  constructor(private readonly variant: ProviderVariant) {
    super(
      variant.config.clientId,
      variant.config.clientSecret,
      '',
      variant.config.authorizeUrl,
      variant.config.tokenUrl,
    );
  }

  override getOAuthAccessToken(
    code: string,
    paramsOrCallback: Record<string, string> | oauth2tokenCallback,
    maybeCallback?: oauth2tokenCallback,
  ): void {
    const [params, callback] =
      typeof paramsOrCallback === 'function' ? [{}, paramsOrCallback] : [paramsOrCallback, maybeCallback];
    if (!callback) throw new TypeError('getOAuthAccessToken needs a callback');
    this.variant.exchangeCode(code, params).then(
      // node-oauth passes null on success; @types/oauth leaves null out of the error's type.
      (token: TokenResult) => callback(null as never, token.accessToken, token.refreshToken, token),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
    );
  }
}

/**
 * passport-oauth2 for both provider kinds: passport builds the authorize redirect (state + PKCE S256
 * through the signed-cookie store) and checks the state on the callback; the variant exchanges the
 * code (through its OAuth2 client, in the `_oauth2` slot passport-oauth2 leaves to subclasses) and
 * loads the identity. The verified "user" is an ExternalIdentity, stored by the route.
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
    this._oauth2 = new VariantOAuth2Client(variant);
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
