import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { SESSION_COOKIE } from '../auth/authenticate';

/**
 * The one origin policy of the server, used by the REST cross-site guard (http/cross-site.ts) and the
 * browser WebSocket upgrade (ws/upgrade-auth.ts). The server's own origins are:
 * - the origin of `PUBLIC_URL`,
 * - every origin listed in `ALLOWED_ORIGINS`,
 * - the address the connection arrived at (`http://<local address>:<local port>`, plus `localhost`
 *   when that address is a loopback one), so a server opened by its listening address works too.
 * Another port on the same host is another origin, so it is not the server's own.
 */
export interface OriginSettings {
  publicUrl: string;
  allowedOrigins: readonly string[];
}

/** Where the connection of a request arrived (`req.socket.localAddress/localPort`). */
export interface LocalEndpoint {
  localAddress?: string | undefined;
  localPort?: number | undefined;
}

const normalized = (value: string): string | null => {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
};

/** The origins a browser uses to reach the server at its listening address. */
export function listeningOrigins(local: LocalEndpoint | undefined): string[] {
  if (!local?.localAddress || !local.localPort) return [];
  const address = local.localAddress.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  const host = isIP(address) === 6 ? `[${address}]` : address;
  const origins = [`http://${host}:${local.localPort}`];
  if (address === '::1' || /^127\./.test(address)) origins.push(`http://localhost:${local.localPort}`);
  return origins.map(normalized).filter((o): o is string => o !== null);
}

/** Whether `origin` (an `Origin` header value) is one of the server's own origins. */
export function originAllowed(
  origin: string,
  publicUrl: string,
  allowed: readonly string[],
  local?: LocalEndpoint,
): boolean {
  const candidate = normalized(origin);
  if (candidate === null) return false;
  if (candidate === normalized(publicUrl)) return true;
  if (allowed.some((entry) => normalized(entry) === candidate)) return true;
  return listeningOrigins(local).includes(candidate);
}

/** Whether the request carries the session cookie (an ambient credential a browser sends by itself). */
export function hasSessionCookie(headers: IncomingHttpHeaders): boolean {
  return (headers.cookie ?? '').split(';').some((part) => part.trim().split('=')[0] === SESSION_COOKIE);
}

/**
 * Checks that a browser request comes from the server's own pages. `Sec-Fetch-Site: same-origin`
 * (set by the browser, never by a page) or an `Origin` of the server's own pass; a foreign `Origin`
 * never does. Without either header only a request without the session cookie passes (a CLI, curl):
 * a cookie-carrying request from a browser always has one of them.
 * Returns the reason of a refusal, or null.
 */
export function browserOriginProblem(
  headers: IncomingHttpHeaders,
  settings: OriginSettings,
  local: LocalEndpoint | undefined,
): string | null {
  if (headers['sec-fetch-site'] === 'same-origin') return null;
  const origin = headers.origin;
  if (origin !== undefined) {
    return originAllowed(origin, settings.publicUrl, settings.allowedOrigins, local)
      ? null
      : `origin ${origin.slice(0, 200)} is not allowed`;
  }
  if (hasSessionCookie(headers)) return 'a cookie-authenticated request needs an Origin header';
  return null;
}
