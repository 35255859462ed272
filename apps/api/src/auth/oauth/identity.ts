import { createHash } from 'node:crypto';
import type { ExternalIdentity } from '../session';

export const MAX_LOGIN_CHARS = 64;

/**
 * A login made of `a-z 0-9 . _ -` from a provider-supplied name: lower case, accents folded, every other
 * run of characters becomes one `-`. Returns null when nothing usable is left.
 */
export function sanitizeLogin(raw: string): string | null {
  const folded = raw
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  const login = folded
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .slice(0, MAX_LOGIN_CHARS)
    .replace(/^[-._]+|[-._]+$/g, '');
  return login || null;
}

/** The first candidate that sanitizes to a login, else `<provider>-<8 hex of the subject>` (stable per user). */
export function chooseLogin(provider: string, subject: string, candidates: (string | null | undefined)[]): string {
  for (const candidate of candidates) {
    const login = candidate ? sanitizeLogin(candidate) : null;
    if (login) return login;
  }
  return `${provider}-${createHash('sha256').update(subject).digest('hex').slice(0, 8)}`;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value.trim() : null);

/** A standard OIDC / OAuth 2.0 user-info document (OIDC claims, or GitHub-style `id`/`login`/`avatar_url`). */
export function identityFromUserInfo(info: Record<string, unknown>): ExternalIdentity | null {
  const subject = text(info.sub) ?? (typeof info.id === 'number' ? String(info.id) : text(info.id));
  if (!subject) return null;
  // ADMIN_USERS may list e-mails: only an address the provider asserts verified is kept.
  const verified = info.email_verified === true || info.email_verified === 'true';
  const email = verified ? text(info.email) : null;
  const emailLocal = email?.split('@')[0];
  return {
    provider: 'oauth2',
    subject,
    login: chooseLogin('oauth2', subject, [
      text(info.preferred_username),
      text(info.login),
      text(info.nickname),
      emailLocal,
    ]),
    email,
    name: text(info.name) ?? text(info.nickname),
    avatarUrl: text(info.picture) ?? text(info.avatar_url),
  };
}

/** The short-video SSO's user info: `open_id` (per application), `union_id`, `nickname`, `avatar`. */
export function identityFromSsoUserInfo(info: Record<string, unknown>): ExternalIdentity | null {
  const subject = text(info.open_id);
  if (!subject) return null;
  const nickname = text(info.nickname);
  return {
    provider: 'sso',
    subject,
    login: chooseLogin('sso', subject, [nickname]),
    email: null,
    name: nickname,
    avatarUrl: text(info.avatar),
  };
}
