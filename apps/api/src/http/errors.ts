import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ERROR_STATUS } from '@svc/protocol';
import { failureLogLevel, notFound, toDomainError } from '../domain/errors';

/** Renders anything thrown as the contract's error body, its status from the one code-to-status table. */
export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  const domainError = toDomainError(error);
  const status = ERROR_STATUS[domainError.code];
  if (status >= 500) req.log?.[failureLogLevel(error)]({ err: error }, 'request failed');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res
    .status(status)
    .set(domainError.headers)
    .json({
      error: { code: domainError.code, message: domainError.message, request_id: req.id ?? '' },
    });
};

export const routeNotFound: RequestHandler = (_req, _res, next) => next(notFound('no such endpoint'));
