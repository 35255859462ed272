import { PassThrough, type Writable } from 'node:stream';
import type { Request, Response } from 'express';
import { DomainError } from '../../domain/errors';
import { payloadTooLarge } from '../../services/streaming-upload';

/** How long a refused upload may keep sending after the error answer before its connection is cut. */
const LINGER_MS = 5_000;

export const clientAborted = () => new DomainError('invalid_input', 'the client aborted the upload');

/** Refuses an upload up front when its declared Content-Length is over the limit. */
export function checkDeclaredLength(req: Request, maxBytes: number): void {
  const declared = Number(req.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw payloadTooLarge(maxBytes);
}

/**
 * Feeds the request body into `target`, destroying `target` if the client goes away mid-body. The
 * request itself is never destroyed by a failing consumer, so an error answer can still be sent.
 */
export function pipeBody<T extends Writable>(req: Request, target: T): T {
  const onClose = () => {
    if (!req.complete) target.destroy(clientAborted());
  };
  req.once('close', onClose);
  target.once('close', () => req.off('close', onClose));
  req.pipe(target);
  return target;
}

/** The request body as a stream that may be destroyed without taking the request (and its socket) along. */
export const detachedBody = (req: Request) => pipeBody(req, new PassThrough({ highWaterMark: 1024 * 1024 }));

/**
 * After an error answer to an upload whose body was not read to the end: keep reading and discarding
 * it for a short while so the client sees the answer instead of a reset, then cut the connection.
 */
export function lingerOnUnreadBody(req: Request, res: Response): void {
  if (req.complete) return;
  res.once('finish', () => {
    if (req.complete) return;
    req.unpipe();
    req.resume();
    const timer = setTimeout(() => {
      if (!req.complete) req.socket.destroy();
    }, LINGER_MS);
    timer.unref();
    req.once('end', () => clearTimeout(timer));
  });
}
