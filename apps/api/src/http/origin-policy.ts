import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { SESSION_COOKIE } from '../auth/authenticate';

/**
 * The one origin policy of the server, used by the REST cross-site guard (http/cross-site.ts) and the
 * browser WebSocket upgrade (ws/upgrade-auth.ts). The server's own origins are:
 * - the origin of `PUBLIC_URL`,
 * - every origin listed in `ALLOWED_ORIGINS`,
 * - `http(s)://<Host>` when the request's own `Host` names the address the connection arrived at and
 *   its port is the listening port: any loopback name (`localhost`, `127.x.x.x`, `[::1]`) for a
 *   connection that arrived on loopback, else that interface's address literally. So the server works
 *   at whatever address its listening address allows (127.0.0.1, localhost, [::1], a LAN address when
 *   bound to all interfaces), while a DNS name (a rebinding attacker's) must be configured explicitly.
 * Another port on the same host is another origin, so it is not the server's own; nor is `null`.
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

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, how a dual-stack socket reports IPv4) as IPv4. */
const plainAddress = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

const isLoopback = (address: string) => address === '::1' || /^127\.\d+\.\d+\.\d+$/.test(address);

/** A URL host name (`[::1]`, `127.0.0.1`, `localhost`) as a bare address or lower-case name. */
const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();

/** Whether `hostname` (from a parsed URL) names the local address a connection arrived at. */
export function namesLocalAddress(hostname: string, localAddress: string): boolean {
  const local = plainAddress(localAddress);
  const host = bareHost(hostname);
  if (isLoopback(local)) return host === 'localhost' || (isIP(host) !== 0 && isLoopback(host));
  if (isIP(host) === 0) return false;
  // Compare as URL hosts, which spell an address one way (`[fe80::1]`, lower case, no leading zeros).
  const spell = (address: string) => new URL(`http://${isIP(address) === 6 ? `[${address}]` : address}`).hostname;
  try {
    return spell(host) === spell(local);
  } catch {
    return false;
  }
}

/**
 * Whether `origin` is `http(s)://<host>` for the request's `Host` header, that host naming the
 * connection's local address and its port being the listening port.
 */
export function isListeningOrigin(
  origin: string,
  hostHeader: string | undefined,
  local: LocalEndpoint | undefined,
): boolean {
  if (!hostHeader || !local?.localAddress || !local.localPort) return false;
  const host = hostOfOrigin(origin, hostHeader);
  if (!host) return false;
  const port = host.port === '' ? DEFAULT_PORTS[host.protocol] : Number(host.port);
  return port === local.localPort && namesLocalAddress(host.hostname, local.localAddress);
}

/**
 * The `Host` header as a URL of the origin's scheme, when the origin is exactly that host (an http(s)
 * origin, no credentials, path, query or fragment in the host); otherwise null.
 */
function hostOfOrigin(origin: string, hostHeader: string): URL | null {
  let candidate: URL;
  let host: URL;
  try {
    candidate = new URL(origin);
    host = new URL(`${candidate.protocol}//${hostHeader}`);
  } catch {
    return null;
  }
  if (DEFAULT_PORTS[candidate.protocol] === undefined || candidate.origin === 'null') return null;
  if (candidate.origin !== host.origin) return null;
  const bare = !host.username && !host.password && host.pathname === '/' && !host.search && !host.hash;
  return bare ? host : null;
}

/** Whether `origin` (an `Origin` header value) is one of the server's own origins. */
export function originAllowed(
  origin: string,
  publicUrl: string,
  allowed: readonly string[],
  request?: { host?: string | undefined; local?: LocalEndpoint | undefined },
): boolean {
  const candidate = normalized(origin);
  if (candidate === null) return false;
  if (candidate === normalized(publicUrl)) return true;
  if (allowed.some((entry) => normalized(entry) === candidate)) return true;
  return isListeningOrigin(origin, request?.host, request?.local);
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
    return originAllowed(origin, settings.publicUrl, settings.allowedOrigins, { host: headers.host, local })
      ? null
      : `origin ${origin.slice(0, 200)} is not allowed`;
  }
  if (hasSessionCookie(headers)) return 'a cookie-authenticated request needs an Origin header';
  return null;
}
