import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { invalidInput, unauthenticated } from '../domain/errors';
import { DELIVERY_ID, MAX_DELIVERY_ID_CHARS, headerValue, newTriggerSecret } from '../triggers/signature';
import type { ForgeKind } from './types';

/** A forge delivery whose signature (or token) holds: its id and its event name. */
export interface VerifiedForgeDelivery {
  deliveryId: string;
  event: string;
}

/**
 * A repository's forge webhook secret, made when the repository is connected and when it is rotated:
 * the triggers' signing-secret generator (32 random bytes, 64 hex characters), one function for both.
 */
export const newForgeWebhookSecret = (): string => newTriggerSecret();

/** Like the triggers' event names, and with spaces: GitLab's are e.g. `Note Hook`. */
const EVENT_NAME = /^[A-Za-z0-9_. -]{1,64}$/;

const hmac = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest();

function hexMatches(hex: string | undefined, expected: Buffer): boolean {
  if (hex === undefined || !/^[0-9a-f]{64}$/i.test(hex)) return false;
  return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
}

/** Constant time whatever the lengths: both sides are hashed first. */
function tokenMatches(given: string | undefined, secret: string): boolean {
  if (given === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(secret));
}

const refused = (header: string) =>
  unauthenticated(`header ${header} is missing or does not match the repository's webhook secret`);

function required(headers: IncomingHttpHeaders, header: string, check: RegExp, max: number): string {
  const value = headerValue(headers, header)?.trim();
  if (value === undefined || value === '') throw invalidInput(`header ${header} is missing`);
  if (value.length > max || !check.test(value)) throw invalidInput(`header ${header} is not valid`);
  return value;
}

const first = (headers: IncomingHttpHeaders, ...names: string[]) =>
  names.map((name) => headerValue(headers, name)).find((value) => value !== undefined);

/** GitHub: `X-Hub-Signature-256: sha256=<hex HMAC>`. */
function verifyGithub(secret: string, headers: IncomingHttpHeaders, body: Buffer): VerifiedForgeDelivery {
  const header = /^sha256=([0-9a-f]{64})$/i.exec(headerValue(headers, 'x-hub-signature-256')?.trim() ?? '');
  if (!hexMatches(header?.[1], hmac(secret, body))) throw refused('X-Hub-Signature-256');
  return {
    deliveryId: required(headers, 'X-GitHub-Delivery', DELIVERY_ID, MAX_DELIVERY_ID_CHARS),
    event: required(headers, 'X-GitHub-Event', EVENT_NAME, 64),
  };
}

/** Gitea: `X-Gitea-Signature: <hex HMAC>` (Forgejo sends the same as `X-Forgejo-*` too). */
function verifyGitea(secret: string, headers: IncomingHttpHeaders, body: Buffer): VerifiedForgeDelivery {
  const given = first(headers, 'x-gitea-signature', 'x-forgejo-signature')?.trim();
  if (!hexMatches(given, hmac(secret, body))) throw refused('X-Gitea-Signature');
  const named = {
    'x-gitea-delivery': first(headers, 'x-gitea-delivery', 'x-forgejo-delivery'),
    'x-gitea-event': first(headers, 'x-gitea-event', 'x-forgejo-event'),
  };
  return {
    deliveryId: required(named, 'X-Gitea-Delivery', DELIVERY_ID, MAX_DELIVERY_ID_CHARS),
    event: required(named, 'X-Gitea-Event', EVENT_NAME, 64),
  };
}

/** GitLab: `X-Gitlab-Token: <the secret>` (GitLab signs nothing). */
function verifyGitlab(secret: string, headers: IncomingHttpHeaders): VerifiedForgeDelivery {
  if (!tokenMatches(headerValue(headers, 'x-gitlab-token'), secret)) throw refused('X-Gitlab-Token');
  return {
    deliveryId: required(headers, 'X-Gitlab-Event-UUID', DELIVERY_ID, MAX_DELIVERY_ID_CHARS),
    event: required(headers, 'X-Gitlab-Event', EVENT_NAME, 64),
  };
}

/**
 * Checks a delivery as its forge signs it, over the exact body bytes: GitHub `X-Hub-Signature-256:
 * sha256=<hex HMAC>`, Gitea/Forgejo `X-Gitea-Signature: <hex HMAC>` (Forgejo also sends
 * `X-Forgejo-Signature`), GitLab `X-Gitlab-Token: <secret>`. The signature is checked before any header
 * is trusted: 401 when it does not hold, then 400 for a missing delivery id or event.
 */
export function verifyForgeDelivery(
  forge: ForgeKind,
  secret: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
): VerifiedForgeDelivery {
  if (forge === 'github') return verifyGithub(secret, headers, body);
  if (forge === 'gitea') return verifyGitea(secret, headers, body);
  return verifyGitlab(secret, headers);
}

/** The headers a forge would send with `body` (tests, the README's examples). */
export function signForgeDelivery(
  forge: ForgeKind,
  secret: string,
  body: string,
  delivery: { id: string; event: string },
): Record<string, string> {
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  switch (forge) {
    case 'github':
      return {
        'X-Hub-Signature-256': `sha256=${hex}`,
        'X-GitHub-Delivery': delivery.id,
        'X-GitHub-Event': delivery.event,
      };
    case 'gitea':
      return { 'X-Gitea-Signature': hex, 'X-Gitea-Delivery': delivery.id, 'X-Gitea-Event': delivery.event };
    case 'gitlab':
      return { 'X-Gitlab-Token': secret, 'X-Gitlab-Event-UUID': delivery.id, 'X-Gitlab-Event': delivery.event };
  }
}
