import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RequestHandler } from 'express';
import { ERROR_STATUS, type ErrorCode } from '@svc/protocol';
import { DomainError } from '../domain/errors';
import { errorHandler } from './errors';

/** How long a refused connection may take to read its answer before it is cut. */
const CLOSE_GRACE_MS = 1000;

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** A body must average at least `bytesPerSecond` over each `graceMs` window (0: no minimum). */
export interface BodyMinRate {
  bytesPerSecond: number;
  graceMs: number;
}

/**
 * Body inactivity timeout (issue 12, finding 5) and minimum receive rate (issue 21, finding 8). Uploads
 * may stream for as long as they need (`requestTimeout` stays 0), but a body that sends nothing for `ms`,
 * or less than `minRate` per window (a drip that resets the idle timer with one byte at a time), is cut:
 * 408 with the contract's error body, then the connection is closed. The idle timer is the socket's, so
 * every chunk restarts it; both are switched off once the body is complete.
 */
export function bodyTimeout(ms: number, minRate: BodyMinRate = { bytesPerSecond: 0, graceMs: 0 }): RequestHandler {
  return (req, res, next) => {
    if (req.complete || !hasBody(req)) return next();
    let stopRate = () => undefined as void;
    const stop = () => {
      req.off('timeout', onTimeout);
      req.off('end', stop);
      req.off('close', stop);
      stopRate();
      // Once the answer is out the socket's idle timer is Node's keep-alive timer: leave it alone.
      if (!res.writableFinished) req.socket?.setTimeout(0);
    };
    const cut = (why: string) => {
      stop();
      if (req.complete) return;
      req.log?.info({ method: req.method, url: req.originalUrl }, `request body ${why}`);
      if (res.headersSent) return void req.socket.destroy();
      res.set('Connection', 'close');
      // Destroying the request (not only the socket) lets its consumers see it end: Node no longer tracks
      // a request whose answer is out, so an upload still reading it would otherwise wait for ever.
      res.once('finish', () => {
        req.destroy();
        closeSoon(req.socket);
      });
      errorHandler(new DomainError('request_timeout', `the request body ${why}`), req, res, next);
    };
    const onTimeout = () => cut(`sent nothing for ${ms} ms`);
    req.setTimeout(ms, onTimeout);
    req.once('end', stop);
    req.once('close', stop);
    if (minRate.bytesPerSecond > 0) stopRate = watchRate(req, minRate, cut);
    next();
  };
}

/**
 * Checks the bytes received in each window of `graceMs`. A window in which the server itself held the
 * body back (nobody reading it, or a consumer applying backpressure) does not count, nor does one the
 * check ran late for (a busy event loop has not read what arrived yet).
 */
function watchRate(req: IncomingMessage, { bytesPerSecond, graceMs }: BodyMinRate, cut: (why: string) => void) {
  const socket = req.socket;
  let windowStart = Date.now();
  let bytesAtStart = socket.bytesRead;
  let heldBack = false;
  const onPause = () => (heldBack = true);
  req.on('pause', onPause);
  const timer = setInterval(() => {
    const now = Date.now();
    const received = socket.bytesRead - bytesAtStart;
    const elapsed = now - windowStart;
    const counts = !heldBack && req.readableFlowing === true && elapsed < graceMs * 1.5;
    if (counts && received < (bytesPerSecond * elapsed) / 1000)
      return cut(`arrived slower than ${bytesPerSecond} bytes/s (${received} bytes in ${elapsed} ms)`);
    windowStart = now;
    bytesAtStart = socket.bytesRead;
    heldBack = false;
  }, graceMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    req.off('pause', onPause);
  };
}

/** Ends a connection after what was written, and cuts it if the peer does not close its side. */
function closeSoon(socket: Socket | Duplex): void {
  socket.end();
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}

const CLIENT_ERRORS: Record<string, [number, ErrorCode, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'the request headers did not arrive in time'],
  HPE_HEADER_OVERFLOW: [431, 'invalid_input', 'the request headers are too large'],
};

/**
 * `clientError` of the HTTP server: what Node answers itself (a header timeout, headers too large,
 * a malformed request) gets the contract's error body too, then the connection is closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const busy = (socket as Duplex & { _httpMessage?: unknown })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || busy) return void socket.destroy();
  const [status, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [
    ERROR_STATUS.invalid_input,
    'invalid_input',
    'malformed HTTP request',
  ];
  const body = JSON.stringify({ error: { code, message, request_id: '' } });
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  closeSoon(socket);
}
