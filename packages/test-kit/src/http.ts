/** A request as tests make it: `as` is a credential (a `name=value` cookie or a bearer token), `json` a body. */
export type TestRequestInit = RequestInit & { as?: string; json?: unknown };

/** A base URL and a fetch against it. */
export interface ApiTarget {
  url: string;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what}: HTTP ${status} ${body.slice(0, 500)}`);
  }
}

/** fetch against `baseUrl` with an optional credential; redirects are returned, not followed. */
export async function request(baseUrl: string, path: string, init: TestRequestInit = {}): Promise<Response> {
  const { as, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (as) {
    if (as.includes('=')) {
      headers.set('cookie', as);
      // A browser sends its page's Origin with a cookie on unsafe requests; the server refuses them without it.
      if (!headers.has('origin')) headers.set('origin', new URL(baseUrl).origin);
    } else headers.set('authorization', `Bearer ${as}`);
  }
  if (json !== undefined) {
    headers.set('content-type', 'application/json');
    rest.body = JSON.stringify(json);
    rest.method ??= 'POST';
  }
  return fetch(`${baseUrl}${path}`, { ...rest, headers, redirect: 'manual' });
}

/** The JSON body of a response that must have the given status. */
export async function expectJson<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** Signs in through the real dev login (`POST /svc/auth/dev-login`) and returns the `svc_session=…` cookie. */
export async function signIn(baseUrl: string, login: string): Promise<string> {
  const res = await request(baseUrl, '/svc/auth/dev-login', {
    method: 'POST',
    json: { login },
    headers: { accept: 'application/json' },
  });
  if (res.status !== 200) throw new HttpError(res.status, await res.text(), `dev login of ${login}`);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('svc_session='));
  if (!cookie) throw new Error('dev login set no svc_session cookie');
  return cookie.split(';')[0]!;
}

/** A signed-in caller of the REST API (`/svc/api` paths): a session cookie or a bearer token. */
export class Session {
  constructor(
    readonly baseUrl: string,
    /** A `svc_session=…` cookie or a bearer token. */
    readonly credential: string,
  ) {}

  /** A user signed in through the dev login. */
  static async signIn(baseUrl: string, login: string): Promise<Session> {
    return new Session(baseUrl, await signIn(baseUrl, login));
  }

  /** A request to `/svc/api<path>` as this caller. */
  fetch(path: string, init: TestRequestInit = {}): Promise<Response> {
    return request(this.baseUrl, `/svc/api${path}`, { ...init, as: this.credential });
  }

  /** The JSON answer of a request that must succeed (2xx). */
  async json<T>(path: string, init: TestRequestInit = {}): Promise<T> {
    const res = await this.fetch(path, init);
    const text = await res.text();
    const method = init.method ?? (init.json === undefined ? 'GET' : 'POST');
    if (!res.ok) throw new HttpError(res.status, text, `${method} ${path}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** The text answer of a GET that must succeed. */
  async text(path: string): Promise<string> {
    const res = await this.fetch(path);
    const text = await res.text();
    if (!res.ok) throw new HttpError(res.status, text, `GET ${path}`);
    return text;
  }
}

/** A worker-scope token, issued the real way: an administrator (`root` by default) asks POST /token for one. */
export async function workerToken(api: ApiTarget, admin = 'root'): Promise<string> {
  const session = await Session.signIn(api.url, admin);
  const res = await session.fetch('/token', { json: { scope: 'worker' } });
  if (res.status !== 201) throw new HttpError(res.status, await res.text(), 'worker token');
  return ((await res.json()) as { token: string }).token;
}
