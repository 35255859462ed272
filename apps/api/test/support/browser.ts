/** One cookie as a browser keeps it (cookies are per host, not per port, as in a real browser). */
export interface StoredCookie {
  host: string;
  name: string;
  value: string;
  path: string;
  expiresAt: number | null;
  attributes: string;
}

/**
 * A small browser for sign-in flows: real fetch, no automatic redirects (each hop is visible), and a
 * cookie jar honouring Path, Max-Age and deletion, so the server's cookie attributes are exercised.
 */
export class Browser {
  private jar: StoredCookie[] = [];

  /** One GET (or other method) with the jar's cookies; stores what the response sets. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(url);
    if (cookie) headers.set('cookie', cookie);
    // A browser names the page's origin on unsafe requests (the page is the server's own here).
    const method = (init.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD' && !headers.has('origin')) headers.set('origin', new URL(url).origin);
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) this.store(url, line);
    return response;
  }

  /** Follows redirects hop by hop from `url`; returns every response, the last one not a redirect. */
  async follow(url: string, maxHops = 10): Promise<{ url: string; response: Response }[]> {
    const hops: { url: string; response: Response }[] = [];
    let next: string | null = url;
    while (next) {
      if (hops.length === maxHops) throw new Error(`more than ${maxHops} redirects from ${url}`);
      const response = await this.request(next);
      hops.push({ url: next, response });
      next = redirectTarget(next, response);
    }
    return hops;
  }

  cookie(name: string): StoredCookie | undefined {
    return this.live().find((c) => c.name === name);
  }

  /** Replaces a cookie's value (to play an attacker who swaps it). */
  setCookie(url: string, name: string, value: string, path = '/'): void {
    this.store(url, `${name}=${value}; Path=${path}`);
  }

  cookieHeader(url: string): string {
    const { hostname, pathname } = new URL(url);
    return this.live()
      .filter(
        (c) =>
          c.host === hostname &&
          (pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)),
      )
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  private live(): StoredCookie[] {
    const now = Date.now();
    this.jar = this.jar.filter((c) => c.expiresAt === null || c.expiresAt > now);
    return this.jar;
  }

  private store(url: string, line: string): void {
    const [pair = '', ...attributeParts] = line.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const attributes = new Map(
      attributeParts.map((a) => [a.split('=')[0]!.toLowerCase(), a.split('=').slice(1).join('=')]),
    );
    const host = new URL(url).hostname;
    const path = attributes.get('path') || '/';
    let expiresAt: number | null = null;
    if (attributes.has('max-age')) expiresAt = Date.now() + Number(attributes.get('max-age')) * 1000;
    else if (attributes.has('expires')) expiresAt = Date.parse(attributes.get('expires')!);
    this.jar = this.jar.filter((c) => !(c.host === host && c.name === name && c.path === path));
    if (expiresAt === null || expiresAt > Date.now())
      this.jar.push({ host, name, value, path, expiresAt, attributes: attributeParts.join('; ') });
  }
}

/** The absolute Location of a redirect response, or null when it is not one. */
export function redirectTarget(from: string, response: Response): string | null {
  const location = response.headers.get('location');
  return response.status >= 300 && response.status < 400 && location ? new URL(location, from).href : null;
}
