import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_STATUS, type ErrorCode } from '@svc/protocol';
import type { AppDeps } from '../deps';
import { authenticateToken, tokenFromRequest } from '../auth/authenticate';
import type { Principal } from '../auth/principal';
import { DomainError, toDomainError } from '../domain/errors';
import { browserOriginProblem, originAllowed } from '../http/origin-policy';

/**
 * Answers a refused upgrade with a plain HTTP error (the contract's error body, with a request id of
 * its own that the log line can name) and closes the socket, so the client sees e.g. 401 before any
 * WebSocket exists.
 */
export function refuseUpgrade(socket: Duplex, error: unknown, requestId: string = randomUUID()): void {
  const { code, message, headers } = toDomainError(error);
  const status = ERROR_STATUS[code];
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: { code, message, request_id: requestId } });
  // e.g. Retry-After while the database cannot answer
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `X-Request-Id: ${requestId}\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 1000).unref();
}

export const refusal = (code: ErrorCode, message: string) => new DomainError(code, message);

/** An upgrade that reaches a draining server (503): the client retries, and the balancer picks another replica. */
export const shuttingDown = () => refusal('unavailable', 'the server is shutting down; reconnect');

/** The caller a token names (verified, its user read); throws `unauthenticated` for a bad one. */
export function principalFromToken(token: string, deps: AppDeps): Promise<Principal> {
  return authenticateToken(token, deps.tokens, deps.db, deps.config.adminUsers);
}

/**
 * A browser socket: cookie or bearer token, a person (not a worker or job token), and an `Origin` that
 * is the server's own or an allowed one (the one origin policy, http/origin-policy.ts, shared with the
 * REST cross-site guard). Only bearer clients (no ambient cookie) may omit `Origin`.
 */
export async function authenticateBrowserUpgrade(
  req: IncomingMessage,
  deps: AppDeps,
  /** how a token becomes its caller (the hub shares one answer between the sockets of a credential) */
  resolve: (token: string) => Promise<Principal> = (token) => principalFromToken(token, deps),
): Promise<Principal> {
  const viaBearer = req.headers.authorization !== undefined;
  const token = tokenFromRequest(req.headers);
  if (token === null) throw refusal('unauthenticated', 'sign in first');
  const principal = await resolve(token);
  if (principal.kind !== 'user') throw refusal('forbidden', `a ${principal.kind} token cannot open the browser socket`);
  if (req.headers.origin === undefined && !viaBearer && req.headers['sec-fetch-site'] !== 'same-origin')
    throw refusal('forbidden', 'a cookie-authenticated socket needs an Origin header');
  if (req.headers.origin !== undefined || !viaBearer) {
    const problem = browserOriginProblem(req.headers, deps.config, req.socket);
    if (problem) throw refusal('forbidden', problem);
  }
  return principal;
}

export { originAllowed };

/** A worker socket: `Authorization: Bearer <worker-scope JWT>` only. */
export async function authenticateWorkerUpgrade(
  req: IncomingMessage,
  deps: AppDeps,
  /** how a token becomes its caller (the hub shares one answer between the workers of a token) */
  resolve: (token: string) => Promise<Principal> = (token) => principalFromToken(token, deps),
): Promise<Principal> {
  if (req.headers.authorization === undefined)
    throw refusal('unauthenticated', 'a worker authenticates with Authorization: Bearer <worker token>');
  const token = tokenFromRequest(req.headers);
  if (token === null) throw refusal('unauthenticated', 'sign in first');
  const principal = await resolve(token);
  if (principal.kind !== 'worker') throw refusal('forbidden', 'a worker-scope token is required');
  return principal;
}
