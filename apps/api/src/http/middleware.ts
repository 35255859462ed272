import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Gives every request an id (a sane incoming X-Request-Id is kept) and a child logger carrying it. */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    req.id = requestIdOf(req.get('x-request-id'));
    req.log = logger.child({ request_id: req.id });
    req.principal = null;
    res.set('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      req.log.debug({ method: req.method, url: req.originalUrl, status: res.statusCode, ms }, 'request');
    });
    next();
  };
}

/** A sane incoming X-Request-Id, else a new one. */
export const requestIdOf = (incoming: string | undefined): string =>
  incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();

export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'SAMEORIGIN',
} as const;

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set(SECURITY_HEADERS);
  next();
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** body-parser `verify` hook: a body that is not valid UTF-8 is refused instead of silently repaired. */
export function requireUtf8(_req: unknown, _res: unknown, buf: Buffer): void {
  try {
    utf8.decode(buf);
  } catch {
    throw new DomainError('invalid_input', 'the body is not valid UTF-8');
  }
}
