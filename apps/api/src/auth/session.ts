import type { Response } from 'express';
import { classifyDbError, type Db, type User } from '@svc/db';
import type { AppDeps } from '../deps';
import { SESSION_COOKIE } from './authenticate';
import { foldName, RESERVED_LOGINS } from './names';

export interface ExternalIdentity {
  provider: string;
  subject: string;
  login: string;
  email?: string | null;
  name?: string | null;
  avatarUrl?: string | null;
}

/**
 * Finds or creates the user behind a provider identity (see findOrCreateUser). Pending invitations are
 * not handed over here: the invitee's own list finds those addressed to what they prove
 * (routes/members/invitations.ts), never by the login they happened to get.
 */
export function upsertUser(
  db: Db,
  identity: ExternalIdentity,
  reservedLogins: ReadonlySet<string> = new Set(),
): Promise<User> {
  return findOrCreateUser(db, identity, reservedLogins);
}

/**
 * Finds or creates the user behind a provider identity. A login that is taken or reserved (compared
 * folded: NFKC + case fold) gets a numeric suffix, so a chosen nickname never lands on an existing or
 * privileged login. Two sign-ins racing (a double click, two new users wanting one login) lose the
 * unique constraint and look again.
 */
async function findOrCreateUser(
  db: Db,
  identity: ExternalIdentity,
  reservedLogins: ReadonlySet<string>,
  attempts = 3,
): Promise<User> {
  const existing = await db.user.findUnique({
    where: { provider_provider_subject: { provider: identity.provider, provider_subject: identity.subject } },
  });
  const profile = {
    email: identity.email ?? null,
    name: identity.name ?? null,
    avatar_url: identity.avatarUrl ?? null,
  };
  if (existing) return db.user.update({ where: { id: existing.id }, data: profile });
  const base = foldName(identity.login);
  const unavailable = async (login: string) =>
    reservedLogins.has(login) || (await db.user.findUnique({ where: { login } })) !== null;
  let login = base;
  for (let n = 2; await unavailable(login); n++) login = `${base}-${n}`;
  try {
    return await db.user.create({
      data: { ...profile, login, provider: identity.provider, provider_subject: identity.subject },
    });
  } catch (error) {
    if (attempts <= 1 || classifyDbError(error) !== 'conflict') throw error;
    return findOrCreateUser(db, identity, reservedLogins, attempts - 1);
  }
}

/** Logins a provider sign-in never gets: the built-in reserved ones and the dev logins ADMIN_USERS names. */
export function reservedLoginsOf(deps: Pick<AppDeps, 'config'>): ReadonlySet<string> {
  return new Set([...RESERVED_LOGINS, ...deps.config.adminUsers.devLogins]);
}

/** The session cookie's attributes; clearing it only works with the same ones it was set with. */
export const sessionCookieOptions = (secure: boolean) => ({
  httpOnly: true,
  sameSite: 'lax' as const,
  secure,
  path: '/',
});

/** Issues a session JWT for the user and sets it as the `svc_session` cookie. */
export async function startSession(deps: AppDeps, res: Response, userId: string, secure: boolean): Promise<void> {
  const { token } = await deps.tokens.issue({
    sub: userId,
    scope: 'session',
    ttlSeconds: deps.config.jwt.sessionTtlSeconds,
  });
  res.cookie(SESSION_COOKIE, token, {
    ...sessionCookieOptions(secure),
    maxAge: deps.config.jwt.sessionTtlSeconds * 1000,
  });
}
