import { ApiError, errorFromResponse } from '@svc/client';
import {
  AuthProviderResponseSchema,
  TokenResponseSchema,
  UserSchema,
  type TokenResponse,
  type User,
} from '@svc/protocol';
import { LineAnswers } from '../answers';
import { CONFIG_KEYS, FileConfigSchema, writeConfigFile, type ConfigKey } from '../config';
import type { Context } from '../context';
import { CliError, EXIT, usageError } from '../errors';

/** `30d`, `12h`, `90m`, `3600s`, `2w` or plain seconds -> seconds. */
export function parseTtl(text: string): number {
  const match = /^(\d+)\s*([smhdw]?)$/i.exec(text.trim());
  if (!match) throw usageError(`--ttl ${text}: give seconds or a number with s, m, h, d or w (e.g. 30d)`);
  const factor = { '': 1, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }[match[2]!.toLowerCase()]!;
  return Number(match[1]) * factor;
}

/** The claims of a JWT, read without verifying it (to show what a token is; the server verifies). */
export function tokenClaims(token: string): Record<string, unknown> | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

async function readStdinToken(ctx: Context): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.io.stdin) chunks.push(Buffer.from(chunk as Buffer));
  const token = Buffer.concat(chunks).toString('utf8').trim();
  if (!token) throw usageError('no token on stdin');
  return token;
}

const DEFAULT_LOGIN_TTL = 30 * 86_400;

type TokenBody = { scope: 'api' | 'worker'; ttl_seconds?: number; project_id?: string };

/**
 * Mints a token through the dev provider (`POST /svc/auth/dev-login`, local installations only): a
 * session for `login`, `POST /svc/api/token` with it, and the session ended at once. The server mints
 * api and worker tokens only for sessions (an api token cannot mint more).
 */
async function devMint(ctx: Context, url: string, login: string, body: TokenBody): Promise<TokenResponse> {
  const fetchFn = ctx.io.fetch ?? ((u: string, init: RequestInit) => globalThis.fetch(u, init));
  const origin = new URL(url).origin;
  const call = async (path: string, init: RequestInit & { headers: Record<string, string> }) => {
    const response = await fetchFn(`${url}${path}`, { ...init, redirect: 'manual' }).catch((error: unknown) => {
      throw new ApiError(0, 'network_error', `the server cannot be reached (${(error as Error).message})`);
    });
    if (!response.ok) throw errorFromResponse(response.status, await response.text(), { request: `POST ${path}` });
    return response;
  };
  const signedIn = await call('/svc/auth/dev-login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', origin },
    body: JSON.stringify({ login }),
  });
  const cookie = signedIn.headers
    .getSetCookie()
    .find((c) => c.startsWith('svc_session='))
    ?.split(';')[0];
  if (!cookie) throw new CliError('the server started no session');
  // A cookie request: the same-origin Origin the server asks of browsers.
  const headers = { cookie, origin, 'content-type': 'application/json', accept: 'application/json' };
  try {
    const minted = await call('/svc/api/token', { method: 'POST', headers, body: JSON.stringify(body) });
    return TokenResponseSchema.parse(await minted.json());
  } finally {
    await call('/svc/auth/logout', { method: 'POST', headers }).catch(() => undefined);
  }
}

/** Mints a token with a bearer credential (a session token: the `svc_session` cookie's value). */
async function bearerMint(ctx: Context, credential: string, body: TokenBody): Promise<TokenResponse> {
  try {
    return await ctx.clientFor(credential).request('/token', TokenResponseSchema, { method: 'POST', json: body });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'forbidden' && tokenClaims(credential)?.scope !== 'session')
      throw new CliError(
        `${error.message}: the server mints tokens only for a signed-in session, not for an api token. ` +
          'Pass --session-token <svc_session cookie value>, or --dev-user <name> on a dev server (see svc login --help)',
        EXIT.failed,
        'forbidden',
      );
    throw error;
  }
}

function browserInstructions(url: string, loginUrl: string, ttlSeconds: number): string {
  const body = JSON.stringify({ scope: 'api', ttl_seconds: ttlSeconds });
  return [
    `1. Sign in with your browser: ${loginUrl}`,
    `2. Then either copy the value of the \`svc_session\` cookie of ${url}`,
    `   (developer tools, F12 > Application/Storage > Cookies), or mint a token in the developer console:`,
    `     fetch('/svc/api/token',{method:'POST',headers:{'content-type':'application/json'},body:'${body}'}).then(r=>r.json()).then(t=>console.log(t.token))`,
    `3. Paste it here (or later: svc login --with-token < file). A session is traded for an api token;`,
    `   only the api token is saved.`,
  ].join('\n');
}

/** One line from the terminal, the question on stderr. */
async function ask(ctx: Context, question: string): Promise<string | undefined> {
  const prompt = new LineAnswers(ctx.io.stdin, ctx.io.stderr);
  const answer = await prompt.answer(question);
  prompt.close();
  return answer ?? undefined;
}

/** The token `svc login` was handed: on stdin (`--with-token`) or as `--token`. */
async function givenToken(ctx: Context, withToken: boolean | undefined): Promise<string | undefined> {
  if (withToken) return readStdinToken(ctx);
  return ctx.settings.sources.token === 'flag' ? ctx.settings.token : undefined;
}

/** The dev provider: a token minted for `--dev-user`, or for the name typed on a terminal. */
async function devSignIn(ctx: Context, url: string, devUser: string | undefined, ttlSeconds: number): Promise<string> {
  let login = devUser;
  if (!login && ctx.io.stdinIsTty) login = await ask(ctx, `User name on ${url} (dev sign-in)`);
  if (!login) throw usageError('this server uses the dev sign-in: pass --dev-user <name>');
  return (await devMint(ctx, url, login, { scope: 'api', ttl_seconds: ttlSeconds })).token;
}

/** Any other provider: the person signs in with a browser and pastes a token or session on the terminal. */
async function browserSignIn(
  ctx: Context,
  url: string,
  loginUrl: string,
  openBrowser: boolean,
  ttlSeconds: number,
): Promise<string> {
  ctx.note(browserInstructions(url, loginUrl, ttlSeconds));
  if (openBrowser && ctx.io.stdinIsTty && ctx.io.openBrowser) await ctx.io.openBrowser(loginUrl);
  if (!ctx.io.stdinIsTty)
    throw new CliError(
      'not a terminal: follow the steps above, then run `svc login --with-token` with the token on stdin',
      EXIT.cancelledOrUsage,
      'usage',
    );
  const token = (await ask(ctx, 'Token'))?.trim();
  if (!token) throw usageError('no token given');
  return token;
}

async function signIn(
  ctx: Context,
  url: string,
  flags: { devUser?: string; browser?: boolean },
  ttlSeconds: number,
): Promise<string> {
  const provider = await ctx.publicClient().request('/auth/provider', AuthProviderResponseSchema);
  if (provider.provider === 'dev') return devSignIn(ctx, url, flags.devUser, ttlSeconds);
  if (flags.devUser) throw usageError(`--dev-user: this server signs in with ${provider.provider}, not dev`);
  const loginUrl = new URL(provider.login_url, `${url}/`).toString();
  return browserSignIn(ctx, url, loginUrl, flags.browser !== false, ttlSeconds);
}

/** When a token's `exp` claim says it expires (ISO 8601), if it has one. */
function expiresAt(claims: Record<string, unknown> | null): string | null {
  return typeof claims?.exp === 'number' ? new Date(claims.exp * 1000).toISOString() : null;
}

export async function loginCommand(
  ctx: Context,
  flags: { withToken?: boolean; devUser?: string; browser?: boolean; ttl?: string; token?: string },
): Promise<number> {
  const url = ctx.url();
  const ttlSeconds = flags.ttl ? parseTtl(flags.ttl) : DEFAULT_LOGIN_TTL;
  let token = await givenToken(ctx, flags.withToken);
  if (!token) token = await signIn(ctx, url, flags, ttlSeconds);
  // A pasted session (the svc_session cookie's value) is traded for an api token; the session is not kept.
  if (tokenClaims(token)?.scope === 'session')
    token = (await bearerMint(ctx, token, { scope: 'api', ttl_seconds: ttlSeconds })).token;
  const user: User = await ctx.clientFor(token).request('/me', UserSchema);
  writeConfigFile(ctx.settings.file, { ...ctx.file, url, token });
  const expires = expiresAt(tokenClaims(token));
  ctx.result(
    { url, user, config_file: ctx.settings.file, expires_at: expires },
    `signed in to ${url} as ${user.login}${expires ? ` (token valid until ${expires})` : ''}; saved in ${ctx.settings.file}`,
  );
  return EXIT.ok;
}

/** Revokes `token` through `POST /svc/auth/logout` (which revokes the bearer token it is called with). */
async function revoke(ctx: Context, token: string): Promise<void> {
  await ctx.clientFor(token).requestVoid('/svc/auth/logout', { method: 'POST' });
}

/** Drops the token from the config file if it is the one there. */
function forget(ctx: Context, token: string): boolean {
  if (ctx.file.token !== token) return false;
  const { token: _dropped, ...rest } = ctx.file;
  writeConfigFile(ctx.settings.file, rest);
  return true;
}

export async function logoutCommand(ctx: Context): Promise<number> {
  const token = ctx.settings.token;
  if (!token) throw usageError('not signed in');
  await revoke(ctx, token);
  const forgotten = forget(ctx, token);
  ctx.result(
    { revoked: true, removed_from_config: forgotten },
    `signed out${forgotten ? ` (token removed from ${ctx.settings.file})` : ''}`,
  );
  return EXIT.ok;
}

export async function whoamiCommand(ctx: Context): Promise<number> {
  const user = await ctx.client().request('/me', UserSchema);
  const claims = tokenClaims(ctx.settings.token ?? '');
  ctx.result(
    {
      url: ctx.url(),
      user,
      token: {
        source: ctx.settings.sources.token,
        scope: claims?.scope ?? null,
        project_id: claims?.project_id ?? null,
        expires_at: expiresAt(claims),
      },
    },
    `${user.login}${user.is_admin ? ' (administrator)' : ''} on ${ctx.url()}`,
  );
  return EXIT.ok;
}

function tokenScope(flag: string | undefined): TokenBody['scope'] {
  const scope = flag ?? 'api';
  if (scope !== 'api' && scope !== 'worker') throw usageError(`--scope ${scope}: api or worker`);
  return scope;
}

/** `--session-token`, read from stdin for `-`; never with `--dev-user`. */
async function sessionTokenFlag(
  ctx: Context,
  flags: { devUser?: string; sessionToken?: string },
): Promise<string | undefined> {
  if (flags.devUser && flags.sessionToken) throw usageError('--dev-user or --session-token, not both');
  return flags.sessionToken === '-' ? readStdinToken(ctx) : flags.sessionToken;
}

/** `--project` as an id; it needs a credential to look the name up: as given when only a session is. */
async function narrowingProject(ctx: Context, sessionToken: string | undefined): Promise<string | undefined> {
  if (ctx.settings.sources.project !== 'flag') return undefined;
  if (ctx.settings.token || !sessionToken) return ctx.projectId();
  return ctx.settings.project;
}

/** Through the dev provider for `--dev-user`, else with the session or the saved token. */
async function mint(
  ctx: Context,
  flags: { devUser?: string },
  sessionToken: string | undefined,
  body: TokenBody,
): Promise<TokenResponse> {
  if (flags.devUser) return devMint(ctx, ctx.url(), flags.devUser, body);
  const credential = sessionToken ?? ctx.settings.token;
  if (!credential) throw usageError('not signed in: pass --session-token or --dev-user, or run `svc login`');
  return bearerMint(ctx, credential, body);
}

function issuedNote(body: TokenBody, issued: TokenResponse, savedIn: string | undefined): string {
  const project = body.project_id ? ` for project ${body.project_id}` : '';
  const saved = savedIn ? `; saved in ${savedIn}` : '';
  return `svc: ${body.scope} token${project}, valid until ${issued.expires_at}${saved}`;
}

export async function tokenCreateCommand(
  ctx: Context,
  flags: { scope?: string; ttl?: string; save?: boolean; devUser?: string; sessionToken?: string },
): Promise<number> {
  const scope = tokenScope(flags.scope);
  const sessionToken = await sessionTokenFlag(ctx, flags);
  const projectId = await narrowingProject(ctx, sessionToken);
  if (projectId && scope !== 'api') throw usageError('--project narrows api tokens only');
  const body: TokenBody = { scope, ttl_seconds: flags.ttl ? parseTtl(flags.ttl) : undefined, project_id: projectId };
  const issued = await mint(ctx, flags, sessionToken, body);
  const savedIn = flags.save ? ctx.settings.file : undefined;
  if (savedIn) writeConfigFile(savedIn, { ...ctx.file, url: ctx.url(), token: issued.token });
  ctx.result({ ...issued, scope, project_id: projectId ?? null }, issued.token);
  if (!ctx.json) ctx.note(issuedNote(body, issued, savedIn));
  return EXIT.ok;
}

async function tokenToRevoke(ctx: Context, tokenArg: string | undefined): Promise<string> {
  const token = tokenArg === '-' ? await readStdinToken(ctx) : (tokenArg ?? ctx.settings.token);
  if (!token) throw usageError('no token to revoke: give it as an argument, - for stdin, or sign in');
  return token;
}

export async function tokenRevokeCommand(ctx: Context, tokenArg: string | undefined): Promise<number> {
  const token = await tokenToRevoke(ctx, tokenArg);
  await revoke(ctx, token);
  const claims = tokenClaims(token) ?? {};
  const forgotten = forget(ctx, token);
  const named = claims.jti ? ` token ${String(claims.jti)}` : '';
  const removed = forgotten ? ` (removed from ${ctx.settings.file})` : '';
  ctx.result(
    { revoked: true, jti: claims.jti ?? null, scope: claims.scope ?? null, removed_from_config: forgotten },
    `revoked${named}${removed}`,
  );
  return EXIT.ok;
}

const redact = (token: string | undefined) => (token ? `${token.slice(0, 12)}…(${token.length} chars)` : null);

function configKey(key: string | undefined): ConfigKey {
  if (!key || !(CONFIG_KEYS as readonly string[]).includes(key))
    throw usageError(`config key: one of ${CONFIG_KEYS.join(', ')}`);
  return key as ConfigKey;
}

function showConfig(ctx: Context): void {
  const { file } = ctx.settings;
  const s = ctx.settings;
  const shown = { file, url: s.url ?? null, token: redact(s.token), project: s.project ?? null, sources: s.sources };
  ctx.result(shown, () =>
    [
      `file: ${file}`,
      ...CONFIG_KEYS.map((k) => `${k}: ${(k === 'token' ? redact(s.token) : s[k]) ?? '(unset)'}  [${s.sources[k]}]`),
    ].join('\n'),
  );
}

function setConfig(ctx: Context, key: string | undefined, value: string | undefined): void {
  const { file } = ctx.settings;
  const k = configKey(key);
  if (value === undefined) throw usageError('svc config set <key> <value>');
  const next = FileConfigSchema.safeParse({ ...ctx.file, [k]: value });
  if (!next.success) throw usageError(`${k}: ${next.error.issues[0]?.message ?? 'invalid'}`);
  writeConfigFile(file, next.data);
  ctx.result({ file, [k]: k === 'token' ? redact(value) : value }, `${k} set in ${file}`);
}

function unsetConfig(ctx: Context, key: string | undefined): void {
  const { file } = ctx.settings;
  const k = configKey(key);
  const { [k]: _dropped, ...rest } = ctx.file;
  writeConfigFile(file, rest);
  ctx.result({ file, unset: k }, `${k} removed from ${file}`);
}

export function configCommand(ctx: Context, action: string, key?: string, value?: string): number {
  switch (action) {
    case 'path':
      ctx.result({ file: ctx.settings.file }, ctx.settings.file);
      break;
    case 'show':
      showConfig(ctx);
      break;
    case 'set':
      setConfig(ctx, key, value);
      break;
    case 'unset':
      unsetConfig(ctx, key);
      break;
    default:
      throw usageError(`svc config ${action}: show, path, set or unset`);
  }
  return EXIT.ok;
}
