import type { User } from '@svc/db';
import { IDENTITY_INVITEE_KINDS, INVITATION_LINK_PREFIX } from '@svc/protocol';
import { invalidInput } from '../domain/errors';
import { foldName } from './names';

/**
 * How an invitation names its invitee (the `login` of POST /projects/{id}/members):
 * - `login`: a user who exists now (invited directly), or a `dev` login nobody has used yet;
 * - `identity`: something the invitee proves at sign-in, written as ADMIN_USERS names identities:
 *   `oauth2:<sub>` / `sso:<open_id>` (compared exactly: subjects are opaque) or `email:<address>`
 *   (a verified e-mail, folded). Stored as a pending invitation under that key, whether or not anyone
 *   with it has signed in, so the answer never tells which identities exist.
 * A provider login that nobody has used yet is stored too, but no provider sign-in ever claims it: a
 * nickname proves nothing (issue 21, finding 4).
 */
export type Invitee = { kind: 'login'; key: string } | { kind: 'identity'; key: string };

const IDENTITY_KINDS: ReadonlySet<string> = new Set(IDENTITY_INVITEE_KINDS);

export function parseInvitee(raw: string, field = 'body.login'): Invitee {
  const text = raw.trim();
  const colon = text.indexOf(':');
  const kind = colon < 0 ? '' : text.slice(0, colon).trim().toLowerCase();
  const value = colon < 0 ? '' : text.slice(colon + 1).trim();
  if (kind === 'link')
    throw invalidInput(`${field}: invitation links are made with POST /projects/{id}/invitation-links`);
  if (kind === 'dev') return { kind: 'login', key: foldName(value) };
  if (!IDENTITY_KINDS.has(kind)) return { kind: 'login', key: foldName(text) };
  if (!value) throw invalidInput(`${field}: "${kind}:" names no identity`);
  if (kind !== 'email') return { kind: 'identity', key: `${kind}:${value}` };
  if (!value.includes('@')) throw invalidInput(`${field}: email: needs an e-mail address`);
  return { kind: 'identity', key: `email:${foldName(value)}` };
}

/** The key an outstanding invitation is listed and cancelled under: parseInvitee's, or a link's `link:<id>`. */
export function invitationKey(raw: string, field: string): string {
  const text = raw.trim();
  if (text.toLowerCase().startsWith(INVITATION_LINK_PREFIX))
    return INVITATION_LINK_PREFIX + text.slice(INVITATION_LINK_PREFIX.length).toLowerCase();
  return parseInvitee(text, field).key;
}

/**
 * The pending-invitation keys a signed-in user has proven: their provider identity and verified
 * e-mail (svc stores no other), or for the local `dev` provider the login itself (its identity).
 */
export function inviteeKeysOf(user: Pick<User, 'provider' | 'provider_subject' | 'email' | 'login'>): string[] {
  const keys: string[] = [];
  if (user.provider !== 'dev') keys.push(`${user.provider}:${user.provider_subject}`);
  else if (!user.login.includes(':')) keys.push(user.login);
  if (user.email) keys.push(`email:${foldName(user.email)}`);
  return keys;
}
