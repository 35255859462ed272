import { randomUUID } from 'node:crypto';
import type { Express, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

const CHILD_LOGGER = Symbol('child logger');
type WithChildLogger = Request & { [CHILD_LOGGER]?: Logger };

/**
 * Gives every request of `app` an id (a sane incoming X-Request-Id is kept), answered in X-Request-Id
 * with the security headers, and a child logger carrying it (`req.log`, made when first used: most
 * requests never log). Requests are logged at debug level with their status and time.
 */
export function requestContext(app: Express, logger: Logger): RequestHandler {
  Object.defineProperty(app.request, 'log', {
    get(this: WithChildLogger) {
      return (this[CHILD_LOGGER] ??= logger.child({ request_id: this.id }));
    },
  });
  return (req, res, next) => {
    req.id = requestIdOf(req.headers['x-request-id'] as string | undefined);
    req.principal = null;
    res.setHeader('X-Request-Id', req.id);
    for (const name in SECURITY_HEADERS) res.setHeader(name, SECURITY_HEADERS[name as keyof typeof SECURITY_HEADERS]);
    if (logger.isLevelEnabled('debug')) logWhenFinished(req, res);
    next();
  };
}

function logWhenFinished(req: Request, res: Response): void {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    req.log.debug({ method: req.method, url: req.originalUrl, status: res.statusCode, ms }, 'request');
  });
}

/** A sane incoming X-Request-Id, else a new one. */
export const requestIdOf = (incoming: string | undefined): string =>
  incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();

export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'SAMEORIGIN',
} as const;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** body-parser `verify` hook: a body that is not valid UTF-8 is refused instead of silently repaired. */
export function requireUtf8(_req: unknown, _res: unknown, buf: Buffer): void {
  try {
    utf8.decode(buf);
  } catch {
    throw new DomainError('invalid_input', 'the body is not valid UTF-8');
  }
}
