import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server speaking the short-video platform's OAuth 2.0 variant, as svc implements it:
 * - GET  /platform/oauth/connect/  ?client_key&response_type=code&scope&redirect_uri&state[&code_challenge&code_challenge_method=S256]
 *        -> 302 redirect_uri?code&state   (an unknown or missing client_key: 400; `client_id` is not understood)
 * - POST /oauth/access_token/  form client_key, client_secret, code, grant_type=authorization_code[, redirect_uri, code_verifier]
 *        -> {"data": {"access_token", "open_id", "expires_in", "refresh_token", "scope", "error_code": 0, "description": ""}, "message": "success"}
 * - POST /oauth/userinfo/  form access_token, open_id
 *        -> {"data": {"open_id", "union_id", "nickname", "avatar", "error_code": 0, "description": ""}, "message": "success"}
 * Errors answer HTTP 200 with {"data": {"error_code": <non-zero>, "description"}, "message": "error"}, as the platform does.
 */
export interface SsoUser {
  open_id: string;
  union_id: string;
  nickname: string;
  avatar: string;
}

export interface SsoRequest {
  path: string;
  method: string;
  params: Record<string, string>;
}

export interface SsoProvider {
  url: string;
  clientKey: string;
  clientSecret: string;
  /** The server's SSO_* environment for this provider. */
  env: Record<string, string>;
  requests: SsoRequest[];
  /** Who signs in at the next authorization. */
  nextUser: SsoUser;
  /** Makes the next call to an endpoint answer this instead. */
  failNext(endpoint: 'token' | 'userinfo', status: number, body: unknown): void;
  close(): Promise<void>;
}

const ok = (data: object) => ({ data: { ...data, error_code: 0, description: '' }, message: 'success' });
const refused = (error_code: number, description: string) => ({ data: { error_code, description }, message: 'error' });

export async function startSsoProvider(): Promise<SsoProvider> {
  const clientKey = 'awsvc-test-key';
  const clientSecret = 'sso-test-secret';
  const codes = new Map<string, { user: SsoUser; redirectUri: string; challenge: string | null }>();
  const tokens = new Map<string, SsoUser>();
  const failures = new Map<string, { status: number; body: unknown }>();
  const requests: SsoRequest[] = [];

  const send = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  type Params = Record<string, string | undefined>;

  const authorize = (res: ServerResponse, params: Params) => {
    if (params.client_key !== clientKey) return send(res, 400, refused(10003, 'client_key is invalid'));
    if (params.response_type !== 'code' || !params.redirect_uri) return send(res, 400, refused(10002, 'bad request'));
    if (params.code_challenge && params.code_challenge_method !== 'S256')
      return send(res, 400, refused(10002, 'S256 only'));
    const code = randomBytes(16).toString('hex');
    codes.set(code, {
      user: provider.nextUser,
      redirectUri: params.redirect_uri,
      challenge: params.code_challenge ?? null,
    });
    const back = new URL(params.redirect_uri);
    back.searchParams.set('code', code);
    if (params.state) back.searchParams.set('state', params.state);
    res.writeHead(302, { location: back.href }).end();
  };

  /** Why a token request is refused, or null: client, code, redirect_uri and PKCE verifier in turn. */
  const tokenRefusal = (params: Params, grant: { redirectUri: string; challenge: string | null } | undefined) => {
    if (params.client_key !== clientKey || params.client_secret !== clientSecret)
      return refused(10013, 'client_key or client_secret is invalid');
    if (!grant || params.grant_type !== 'authorization_code') return refused(10007, 'code is invalid or used');
    if (params.redirect_uri && params.redirect_uri !== grant.redirectUri)
      return refused(10008, 'redirect_uri mismatch');
    const challenge = params.code_verifier
      ? createHash('sha256').update(params.code_verifier).digest('base64url')
      : null;
    return grant.challenge === challenge ? null : refused(10009, 'code_verifier does not match');
  };

  const token = (res: ServerResponse, params: Params) => {
    const grant = codes.get(params.code ?? '');
    codes.delete(params.code ?? '');
    const refusal = tokenRefusal(params, grant);
    if (refusal || !grant) return send(res, 200, refusal);
    const accessToken = `act.${randomBytes(16).toString('hex')}`;
    tokens.set(accessToken, grant.user);
    send(
      res,
      200,
      ok({
        access_token: accessToken,
        open_id: grant.user.open_id,
        expires_in: 86400,
        refresh_token: `rft.${randomBytes(8).toString('hex')}`,
        scope: 'user_info',
      }),
    );
  };

  const userinfo = (res: ServerResponse, params: Params) => {
    const user = tokens.get(params.access_token ?? '');
    if (!user) return send(res, 200, refused(2190008, 'access_token is invalid'));
    if (params.open_id !== user.open_id) return send(res, 200, refused(2190015, 'open_id does not match the token'));
    send(res, 200, ok(user));
  };

  const endpoints: Record<string, { method: string; name: 'authorize' | 'token' | 'userinfo'; serve: typeof token }> = {
    '/platform/oauth/connect/': { method: 'GET', name: 'authorize', serve: authorize },
    '/oauth/access_token/': { method: 'POST', name: 'token', serve: token },
    '/oauth/userinfo/': { method: 'POST', name: 'userinfo', serve: userinfo },
  };

  const handle = (req: IncomingMessage, res: ServerResponse, form: URLSearchParams) => {
    const url = new URL(req.url ?? '/', 'http://sso.local');
    const params = Object.fromEntries(req.method === 'GET' ? url.searchParams : form);
    requests.push({ path: url.pathname, method: req.method ?? '', params });
    const endpoint = endpoints[url.pathname];
    const failure = endpoint && failures.get(endpoint.name);
    if (endpoint && failure) {
      failures.delete(endpoint.name);
      return send(res, failure.status, failure.body);
    }
    if (endpoint && endpoint.method === req.method) return endpoint.serve(res, params);
    send(res, 404, refused(404, 'no such endpoint'));
  };

  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handle(req, res, new URLSearchParams(body)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider: SsoProvider = {
    url,
    clientKey,
    clientSecret,
    env: {
      SSO_AUTHORIZE_URL: `${url}/platform/oauth/connect/`,
      SSO_TOKEN_URL: `${url}/oauth/access_token/`,
      SSO_USERINFO_URL: `${url}/oauth/userinfo/`,
      SSO_CLIENT_KEY: clientKey,
      SSO_CLIENT_SECRET: clientSecret,
    },
    requests,
    nextUser: { open_id: 'open-1', union_id: 'union-1', nickname: 'Lin', avatar: 'https://p.sso.example/lin.jpeg' },
    failNext: (endpoint, status, body) => failures.set(endpoint, { status, body }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return provider;
}
