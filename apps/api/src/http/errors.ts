import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ERROR_STATUS, type ErrorCode } from '@svc/protocol';
import { classifyDbError } from '@svc/db';

/** The one error type handlers throw; rendered as the contract's error body by `errorHandler`. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (what = 'not found') => new AppError('not_found', what);
export const invalidInput = (message: string) => new AppError('invalid_input', message);
export const forbidden = (message = 'not allowed') => new AppError('forbidden', message);
export const unauthenticated = (message = 'sign in first') => new AppError('unauthenticated', message);
export const conflict = (message: string) => new AppError('conflict', message);

const DB_MESSAGES = {
  conflict: ['conflict', 'the record already exists'],
  not_found: ['not_found', 'not found'],
  invalid_input: ['invalid_input', 'the request refers to something that does not exist'],
  unavailable: ['unavailable', 'the database is unavailable, try again shortly'],
  internal: ['internal', 'internal error'],
} as const satisfies Record<string, readonly [ErrorCode, string]>;

/** Maps anything thrown to an AppError: database errors by their code, body-parser errors by type. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const dbKind = classifyDbError(error);
  if (dbKind) {
    const [code, message] = DB_MESSAGES[dbKind];
    return new AppError(code, message);
  }
  // Express answers a malformed percent-encoding in a route parameter with a URIError.
  if (error instanceof URIError) return new AppError('invalid_input', 'the URL is not valid percent-encoding');
  const type = (error as { type?: unknown })?.type;
  if (type === 'entity.parse.failed') return new AppError('invalid_input', 'the body is not valid JSON');
  if (type === 'entity.too.large') return new AppError('payload_too_large', 'the body is too large');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new AppError('unsupported_media_type', 'unsupported body encoding');
  }
  return new AppError('internal', 'internal error');
}

export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  const appError = toAppError(error);
  const status = ERROR_STATUS[appError.code];
  if (status >= 500) req.log?.error({ err: error }, 'request failed');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res
    .status(status)
    .set(appError.headers)
    .json({
      error: { code: appError.code, message: appError.message, request_id: req.id ?? '' },
    });
};

export const routeNotFound: RequestHandler = (_req, _res, next) => next(notFound('no such endpoint'));
