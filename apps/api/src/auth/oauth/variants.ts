import type { OAuthProviderConfig } from '../../config';
import type { ExternalIdentity } from '../session';
import { identityFromSsoUserInfo, identityFromUserInfo } from './identity';
import { providerJson, providerRefused, providerUnavailable, safeCode, type ProviderEndpoint } from './provider-http';

export type ProviderKind = 'oauth2' | 'sso';

export interface TokenResult {
  accessToken: string;
  refreshToken: string;
  /** The token endpoint's answer (the SSO variant needs its `open_id`). */
  body: Record<string, unknown>;
}

/** What differs between the two provider kinds; passport-oauth2 drives the shared flow (strategy.ts). */
export interface ProviderVariant {
  kind: ProviderKind;
  config: OAuthProviderConfig;
  /** How the authorize and token requests name the client. */
  clientParam: 'client_id' | 'client_key';
  scopeSeparator: string;
  /** `params` are passport's token parameters: grant_type, redirect_uri, code_verifier. */
  exchangeCode(code: string, params: Record<string, string>): Promise<TokenResult>;
  fetchIdentity(token: TokenResult): Promise<ExternalIdentity>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Any standard OAuth 2.0 / OIDC provider: client_secret_post at the token endpoint, bearer user info. */
export function standardVariant(config: OAuthProviderConfig): ProviderVariant {
  return {
    kind: 'oauth2',
    config,
    clientParam: 'client_id',
    scopeSeparator: ' ',
    async exchangeCode(code, params) {
      const body = await providerJson({
        endpoint: 'token',
        url: config.tokenUrl,
        method: 'POST',
        form: { ...params, code, client_id: config.clientId, client_secret: config.clientSecret },
      });
      if (typeof body.token_type === 'string' && body.token_type.toLowerCase() !== 'bearer') {
        throw providerUnavailable('token', `issued an unsupported token type (${safeCode(body.token_type)})`);
      }
      return tokenFrom(body, 'token');
    },
    async fetchIdentity(token) {
      const info = await providerJson({
        endpoint: 'user info',
        url: config.userInfoUrl,
        method: 'GET',
        headers: { authorization: `Bearer ${token.accessToken}` },
      });
      const identity = identityFromUserInfo(info);
      if (!identity) throw providerUnavailable('user info', 'answered without a user id (`sub` or `id`)');
      return identity;
    },
  };
}

/**
 * The short-video platform SSO (shape documented in docs/decisions/0010-sign-in.md): `client_key` instead of
 * `client_id`; token and user-info answers wrapped as `{"data": {..., "error_code": 0}, "message"}`;
 * user info is a form POST of `access_token` + `open_id` answering `open_id`, `union_id`, `nickname`, `avatar`.
 */
export function ssoVariant(config: OAuthProviderConfig): ProviderVariant {
  return {
    kind: 'sso',
    config,
    clientParam: 'client_key',
    scopeSeparator: ',',
    async exchangeCode(code, params) {
      const body = ssoData(
        await providerJson({
          endpoint: 'token',
          url: config.tokenUrl,
          method: 'POST',
          form: { ...params, code, client_key: config.clientId, client_secret: config.clientSecret },
        }),
        'token',
      );
      if (typeof body.open_id !== 'string' || !body.open_id)
        throw providerUnavailable('token', 'answered without an open_id');
      return tokenFrom(body, 'token');
    },
    async fetchIdentity(token) {
      const info = ssoData(
        await providerJson({
          endpoint: 'user info',
          url: config.userInfoUrl,
          method: 'POST',
          form: { access_token: token.accessToken, open_id: String(token.body.open_id) },
          headers: { 'access-token': token.accessToken },
        }),
        'user info',
      );
      const identity = identityFromSsoUserInfo(info);
      if (!identity) throw providerUnavailable('user info', 'answered without an open_id');
      // The user info must describe the account the token was issued for.
      if (identity.subject !== token.body.open_id) throw providerRefused('user info', 'open_id differs from the token');
      return identity;
    },
  };
}

/** Unwraps the SSO envelope; a non-zero `error_code` is a refusal even with HTTP 200. */
function ssoData(json: Record<string, unknown>, endpoint: ProviderEndpoint): Record<string, unknown> {
  const data = isObject(json.data) ? json.data : json;
  const code = data.error_code;
  if (code !== undefined && code !== 0 && code !== '0') throw providerRefused(endpoint, `error_code ${safeCode(code)}`);
  return data;
}

function tokenFrom(body: Record<string, unknown>, endpoint: ProviderEndpoint): TokenResult {
  if (typeof body.access_token !== 'string' || !body.access_token)
    throw providerUnavailable(endpoint, 'answered without an access_token');
  return {
    accessToken: body.access_token,
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : '',
    body,
  };
}

export function variantFor(kind: ProviderKind, config: OAuthProviderConfig): ProviderVariant {
  return kind === 'sso' ? ssoVariant(config) : standardVariant(config);
}
