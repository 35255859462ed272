import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { TriggerFormat } from '@svc/protocol';
import { DomainError, invalidInput, unauthenticated } from '../domain/errors';

/** How far a timestamped delivery's clock may be from ours, either way. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;
/** Longest delivery id kept (GitHub's are UUIDs); also the forge webhooks' (forges/webhook-signature.ts). */
export const MAX_DELIVERY_ID_CHARS = 200;
export const DELIVERY_ID = /^[\x21-\x7e]+$/;
const EVENT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** A delivery whose signature holds: who sent it (its id) and what it is about (its event). */
export interface VerifiedDelivery {
  deliveryId: string;
  event: string;
}

/** A new signing secret (triggers, webhooks, forge webhooks): 32 random bytes as hex. */
export const newTriggerSecret = () => randomBytes(32).toString('hex');

const hmacHex = (secret: string, ...parts: (string | Buffer)[]) => {
  const mac = createHmac('sha256', secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
};

/** Whether `header` is `sha256=<hex>` of exactly `expected`, compared in constant time. */
function signatureMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '');
  if (!match) return false;
  return timingSafeEqual(Buffer.from(match[1]!, 'hex'), expected);
}

/** A header's value (the first when sent twice). */
export const headerValue = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

function deliveryIdOf(value: string | undefined, header: string): string {
  if (value === undefined || value === '') throw invalidInput(`header ${header} is missing`);
  if (value.length > MAX_DELIVERY_ID_CHARS || !DELIVERY_ID.test(value))
    throw invalidInput(`header ${header}: at most ${MAX_DELIVERY_ID_CHARS} visible ASCII characters`);
  return value;
}

function eventOf(value: string | undefined, header: string, fallback?: string): string {
  if (value === undefined && fallback !== undefined) return fallback;
  if (value === undefined || !EVENT_NAME.test(value)) throw invalidInput(`header ${header}: an event name is needed`);
  return value;
}

const badSignature = (header: string) =>
  unauthenticated(`header ${header} is missing or does not match the body signed with the trigger's secret`);

/** GitHub's form: `X-Hub-Signature-256: sha256=hex(HMAC-SHA256(secret, body))`. */
function verifyGithub(secret: string, headers: IncomingHttpHeaders, body: Buffer): VerifiedDelivery {
  if (!signatureMatches(headerValue(headers, 'x-hub-signature-256'), hmacHex(secret, body)))
    throw badSignature('X-Hub-Signature-256');
  return {
    deliveryId: deliveryIdOf(headerValue(headers, 'x-github-delivery'), 'X-GitHub-Delivery'),
    event: eventOf(headerValue(headers, 'x-github-event'), 'X-GitHub-Event'),
  };
}

/**
 * The timestamped form: `X-Svc-Signature: sha256=hex(HMAC-SHA256(secret, "<timestamp>.<body>"))` with
 * `X-Svc-Timestamp` in unix seconds, refused outside the tolerance so a captured request cannot be
 * replayed later (the delivery id refuses it within the window).
 */
function verifyTimestamped(secret: string, headers: IncomingHttpHeaders, body: Buffer, now: number): VerifiedDelivery {
  const timestamp = headerValue(headers, 'x-svc-timestamp');
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp))
    throw invalidInput('header X-Svc-Timestamp: unix seconds are needed');
  if (!signatureMatches(headerValue(headers, 'x-svc-signature'), hmacHex(secret, `${timestamp}.`, body)))
    throw badSignature('X-Svc-Signature');
  if (Math.abs(now / 1000 - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS)
    throw new DomainError(
      'invalid_input',
      `header X-Svc-Timestamp is more than ${TIMESTAMP_TOLERANCE_SECONDS} seconds from the server's clock`,
    );
  return {
    deliveryId: deliveryIdOf(headerValue(headers, 'x-svc-delivery'), 'X-Svc-Delivery'),
    event: eventOf(headerValue(headers, 'x-svc-event'), 'X-Svc-Event', 'message'),
  };
}

/** Checks a delivery's signature over the exact body bytes: 401 when it does not hold, 400 for bad headers. */
export function verifyDelivery(
  format: TriggerFormat,
  secret: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
  now = Date.now(),
): VerifiedDelivery {
  return format === 'github' ? verifyGithub(secret, headers, body) : verifyTimestamped(secret, headers, body, now);
}

/** The signature headers a sender computes (tests, the CLI's and README's examples). */
export function signDelivery(format: TriggerFormat, secret: string, body: string, timestamp: number) {
  if (format === 'github') return { 'X-Hub-Signature-256': `sha256=${hmacHex(secret, body).toString('hex')}` };
  return {
    'X-Svc-Timestamp': String(timestamp),
    'X-Svc-Signature': `sha256=${hmacHex(secret, `${timestamp}.`, body).toString('hex')}`,
  };
}
