import { parseWith, type OperationId } from '@svc/protocol';
import type { z } from 'zod';
import { ApiError, errorFromResponse } from './errors';
import { callOperation, type CallInput, type CallResult } from './operation-call';

/** REST base path (CONTRACT section 1). */
export const API_BASE = '/svc/api';

/** `fetch` or a stand-in with the same shape (injected by tests, or bound to another realm). */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** A bearer token (worker, CI) or the browser's session cookie. */
export type ClientAuth = { bearer: string } | { credentials: 'same-origin' | 'include' };

export interface RestClientOptions {
  auth: ClientAuth;
  /** Origin (plus any base path) the REST paths are appended to; '' (default) is the page's own origin. */
  baseUrl?: string;
  /** Defaults to the global `fetch`, looked up at call time. */
  fetch?: Fetch;
  /** Per-request time-out; none by default. */
  timeoutMs?: number;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** sent as JSON */
  json?: unknown;
  /** sent as it is, with `contentType` (e.g. a file; a Blob or a ReadableStream is streamed by fetch) */
  body?: string | Uint8Array | Blob | ReadableStream<Uint8Array>;
  contentType?: string;
  query?: Query;
  signal?: AbortSignal;
}

/** `/svc/api` + path + query string; absolute `/svc/...` paths are kept as they are. */
export function apiPath(path: string, query: Query = {}): string {
  const base = path.startsWith('/svc/') ? path : `${API_BASE}${path}`;
  const search = Object.entries(query)
    .filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
    .join('&');
  if (!search) return base;
  return `${base}${base.includes('?') ? '&' : '?'}${search}`;
}

/** `a/b c.md` -> `a/b%20c.md`: each segment of a workspace path encoded on its own. */
export const encodePath = (relPath: string): string => relPath.split('/').map(encodeURIComponent).join('/');

/**
 * The one way svc's apps call the REST API: JSON in, JSON out checked against a protocol schema,
 * the contract's error body turned into an `ApiError`. Pure (no Node built-ins): used by the worker
 * (bearer token) and the web app (session cookie).
 */
export class RestClient {
  private readonly baseUrl: string;

  constructor(private readonly options: RestClientOptions) {
    this.baseUrl = (options.baseUrl ?? '').replace(/\/+$/, '');
  }

  /** A JSON call whose answer is checked against `schema`. */
  async request<S extends z.ZodType>(path: string, schema: S, init: CallOptions = {}): Promise<z.output<S>> {
    const { response, request } = await this.exchange(path, init, 'application/json');
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new ApiError(response.status, 'bad_response', `the answer from ${request} is not JSON`, { request });
    }
    const result = parseWith(schema, body);
    if (!result.ok)
      throw new ApiError(
        response.status,
        'bad_response',
        `unexpected answer from ${request}: ${result.error.message}`,
        {
          request,
        },
      );
    return result.value;
  }

  /**
   * An operation of the protocol's table by its id, typed from it: `call('getWorkflow', { params: { id } })`
   * resolves with the parsed `Workflow`.
   */
  call<Id extends OperationId>(id: Id, input: CallInput<Id>): Promise<CallResult<Id>> {
    return callOperation(this, id, input);
  }

  /** A call answered with no body (204) or one the caller does not need. */
  async requestVoid(path: string, init: CallOptions = {}): Promise<void> {
    const { response } = await this.exchange(path, init, 'application/json');
    await response.body?.cancel();
  }

  /** A call answered with text (markdown, plain text). */
  async requestText(path: string, init: CallOptions = {}): Promise<string> {
    const { response } = await this.exchange(path, init, 'text/plain, text/markdown, */*');
    return response.text();
  }

  /** A call answered with bytes (a file). */
  async requestBytes(path: string, init: CallOptions = {}): Promise<Uint8Array> {
    const { response } = await this.exchange(path, init, '*/*');
    return new Uint8Array(await response.arrayBuffer());
  }

  /**
   * A call whose successful response is handed over unread (a download to stream, an event stream);
   * `headers` are added to the request. A failed status still becomes an ApiError.
   */
  async requestResponse(
    path: string,
    init: CallOptions & { accept?: string; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const { response } = await this.exchange(path, init, init.accept ?? '*/*', init.headers);
    return response;
  }

  /** Sends one request; a failed status becomes an ApiError, a successful response is returned. */
  private async exchange(
    path: string,
    init: CallOptions,
    accept: string,
    extraHeaders: Record<string, string> = {},
  ): Promise<{ response: Response; request: string }> {
    const method = init.method ?? 'GET';
    const target = apiPath(path, init.query);
    const request = `${method} ${target}`;
    const { contentType, body } = encodeBody(init);
    const headers: Record<string, string> = { ...extraHeaders, accept };
    if (contentType) headers['content-type'] = contentType;
    const auth = this.options.auth;
    if ('bearer' in auth) headers.authorization = `Bearer ${auth.bearer}`;
    const signal = this.signalFor(init.signal);
    const response = await this.send(
      `${this.baseUrl}${target}`,
      {
        method,
        headers,
        body: body as BodyInit | undefined,
        // A streamed request body (Node's fetch) must say so.
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
        ...('credentials' in auth ? { credentials: auth.credentials } : {}),
        ...(signal ? { signal } : {}),
      },
      init.signal,
      request,
    );
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw errorFromResponse(response.status, text, { requestId: response.headers.get('x-request-id'), request });
    }
    return { response, request };
  }

  /** `fetch`, with a server that cannot be reached (or a time-out) reported as a `network_error` ApiError. */
  private async send(
    url: string,
    req: RequestInit,
    callerSignal: AbortSignal | undefined,
    request: string,
  ): Promise<Response> {
    try {
      const fetchFn: Fetch = this.options.fetch ?? ((input, options) => globalThis.fetch(input, options));
      return await fetchFn(url, req);
    } catch (error) {
      // The caller gave up: that is not a failure of the server.
      if (callerSignal?.aborted) throw error;
      const reason = isTimeout(error)
        ? `no answer within ${Math.round((this.options.timeoutMs ?? 0) / 1000)}s`
        : errorText(error);
      throw new ApiError(0, 'network_error', `the server cannot be reached (${reason}); try again later`, { request });
    }
  }

  private signalFor(callerSignal: AbortSignal | undefined): AbortSignal | undefined {
    const timeoutMs = this.options.timeoutMs;
    if (timeoutMs === undefined) return callerSignal;
    const timeout = AbortSignal.timeout(timeoutMs);
    return callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
  }
}

/** The request body and its content type: `json` serialized, else `body` with the caller's `contentType`. */
function encodeBody(init: CallOptions): { contentType?: string; body: CallOptions['body'] } {
  if (init.json !== undefined) return { contentType: 'application/json', body: JSON.stringify(init.json) };
  return { contentType: init.contentType, body: init.body };
}

function isTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'TimeoutError';
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici reports "fetch failed" and keeps the reason (ECONNREFUSED, ...) as the cause
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}
