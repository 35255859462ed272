import { randomUUID } from 'node:crypto';
import { ServerResponse } from 'node:http';
import type { Express, Request, RequestHandler, Response } from 'express';
import { childWithLogIds, runWithLogIds, type LogIds } from '@svc/observability';
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

const CHILD_LOGGER = Symbol('child logger');
const LOG_IDS = Symbol('log ids');
type WithChildLogger = Request & { [CHILD_LOGGER]?: Logger };
type WithLogIds = Request & { [LOG_IDS]?: LogIds };

/**
 * Gives every request of `app` an id (a sane incoming X-Request-Id is kept), answered in X-Request-Id
 * with the security headers, and a child logger carrying it (`req.log`, made when first used: most
 * requests never log). Every line logged while the request is handled carries its id (log ids).
 * Requests are logged at debug level with their status and time. The headers are added when the
 * response's head is written (any header a handler set itself is kept), so a hot read writes its whole
 * head at once (encoded-json.ts).
 */
export function requestContext(app: Express, logger: Logger): RequestContext {
  Object.defineProperty(app.request, 'log', {
    get(this: WithChildLogger) {
      return (this[CHILD_LOGGER] ??= childWithLogIds(logger, { request_id: this.id }));
    },
  });
  const writeHead = ServerResponse.prototype.writeHead as (this: Response, ...args: unknown[]) => Response;
  app.response.writeHead = function (this: Response, ...args: unknown[]) {
    // (a response written before its request got an id, which no route does, has no X-Request-Id)
    const headers = contextHeaderList(this.req);
    for (let i = 0; i < headers.length; i += 2)
      if (headers[i + 1] !== undefined && !this.hasHeader(headers[i]!)) this.setHeader(headers[i]!, headers[i + 1]!);
    return writeHead.apply(this, args);
  } as Response['writeHead'];
  const begin = (req: Request, res: Response) => {
    req.id = requestIdOf(req.headers['x-request-id'] as string | undefined);
    (req as WithLogIds)[LOG_IDS] = { request_id: req.id };
    req.principal = null;
    if (logger.isLevelEnabled('debug')) logWhenFinished(req, res);
  };
  return {
    begin,
    middleware: (req, res, next) => {
      begin(req, res);
      handleWithLogIds(req, next);
    },
  };
}

export interface RequestContext {
  /** gives one request its context (a handler that runs before `middleware`, see direct-gets.ts) */
  begin(req: Request, res: Response): void;
  /** gives every request that reaches it its context */
  middleware: RequestHandler;
}

/** Runs a request's handler with its log ids (the request's id, and the run's once it has authorized one). */
export function handleWithLogIds<T>(req: Request, handle: () => T): T {
  return runWithLogIds((req as WithLogIds)[LOG_IDS] ?? { request_id: req.id }, handle);
}

function logWhenFinished(req: Request, res: Response): void {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const runId = (req as WithLogIds)[LOG_IDS]?.run_id;
    req.log.debug({ method: req.method, url: req.originalUrl, status: res.statusCode, ms, run_id: runId }, 'request');
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

const SECURITY_HEADER_LIST = Object.entries(SECURITY_HEADERS).flat();

/**
 * Writes a response's whole head at once, with the context headers (a handler that set none of its own):
 * `headers` is Node's flat list, names and values alternating.
 */
export function writeWholeHead(res: Response, status: number, headers: (string | number)[]): void {
  ServerResponse.prototype.writeHead.call(
    res,
    status,
    (contextHeaderList(res.req) as (string | number)[]).concat(headers),
  );
}

/** The headers every answer of the app carries, as Node's flat list: its request id and the security headers. */
const contextHeaderList = (req: Pick<Request, 'id'>): string[] => ['X-Request-Id', req.id].concat(SECURITY_HEADER_LIST);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** body-parser `verify` hook: a body that is not valid UTF-8 is refused instead of silently repaired. */
export function requireUtf8(_req: unknown, _res: unknown, buf: Buffer): void {
  try {
    utf8.decode(buf);
  } catch {
    throw new DomainError('invalid_input', 'the body is not valid UTF-8');
  }
}
