import { setTimeout as delay } from 'node:timers/promises';
import { ApiError, backoffDelay, encodePath, SvcClient, workflowPath, type BackoffOptions } from '@svc/client';
import {
  FileListSchema,
  KbSearchResponseSchema,
  TemplateListSchema,
  TimerSchema,
  TokenResponseSchema,
  UseTemplateResponseSchema,
  WorkerListSchema,
  type CreateTimerRequest,
  type FileEntry,
  type KbSearchResult,
  type Template,
  type Timer,
  type TokenRequest,
  type TokenResponse,
  type UseTemplateRequest,
  type UseTemplateResponse,
  type Worker,
} from '@svc/protocol';
import { AbortedError } from '../util/aborted';
import { tracedFetch } from '../tracing/spans';
import { silentLogger, type Logger } from '../util/logger';

export { ApiError } from '@svc/client';

/** Back-off between attempts of a server call that failed because the server was unreachable. */
export const DEFAULT_SERVER_RETRY: BackoffOptions = { baseMs: 500, maxMs: 10_000, jitter: 0.5 };

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * A failure that says nothing about the request itself: the server (or the way to it) is down for
 * now. Network errors and time-outs, 502/503/504 from a proxy, and `unavailable`; never a 4xx.
 */
export function isRetryableServerError(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  return error.code === 'network_error' || RETRYABLE_STATUSES.has(error.status) || error.code === 'unavailable';
}

export interface ServerApiOptions {
  serverUrl: string;
  token: string;
  /** Per-request time-out. */
  timeoutMs?: number;
  /** Back-off between retries of calls the server could not answer. */
  retry?: BackoffOptions;
  /** Aborted when the worker gives up for good (shutdown): retries stop then. */
  signal?: AbortSignal;
  logger?: Logger;
}

/**
 * The REST endpoints a worker calls with its worker token (docs/decisions/0002-worker-rest-calls.md).
 * Every call is retried with back-off while the server cannot be reached (see isRetryableServerError),
 * until it succeeds, is refused, or its signal (the workflow's run, or the worker's own) aborts; then it
 * throws AbortedError.
 */
export class ServerApi {
  private readonly client: SvcClient;
  private readonly retry: BackoffOptions;
  private readonly logger: Logger;
  private readonly signal: AbortSignal | undefined;

  constructor(
    private readonly options: ServerApiOptions,
    client?: SvcClient,
  ) {
    this.client =
      client ??
      new SvcClient({
        baseUrl: options.serverUrl,
        auth: { bearer: options.token },
        timeoutMs: options.timeoutMs ?? 60_000,
        fetch: tracedFetch,
      });
    this.retry = options.retry ?? DEFAULT_SERVER_RETRY;
    this.logger = options.logger ?? silentLogger;
    this.signal = options.signal;
  }

  /** The same API whose calls also stop when `signal` aborts (a workflow's run). */
  withSignal(signal: AbortSignal): ServerApi {
    return new ServerApi(
      { ...this.options, retry: this.retry, logger: this.logger, signal: this.signalWith(signal) },
      this.client,
    );
  }

  /**
   * The same API calling with another bearer token: the job token of another worker's `exec`, for
   * what the command's output needs on the asker's workflow (decision 0081).
   */
  withToken(token: string): ServerApi {
    return new ServerApi({ ...this.options, token, retry: this.retry, logger: this.logger, signal: this.signal });
  }

  private filesPath(workflowId: string, relPath: string): string {
    return `${workflowPath(workflowId)}/files/${encodePath(relPath)}`;
  }

  /** This API's signal, also aborted by `extra`. */
  private signalWith(extra: AbortSignal | undefined): AbortSignal | undefined {
    if (extra && this.signal) return AbortSignal.any([this.signal, extra]);
    return extra ?? this.signal;
  }

  /** Runs `call` until it succeeds or fails for a reason other than an unreachable server. */
  private async call<T>(call: (signal: AbortSignal | undefined) => Promise<T>, extra?: AbortSignal): Promise<T> {
    const signal = this.signalWith(extra);
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new AbortedError();
      try {
        return await call(signal);
      } catch (err) {
        if (signal?.aborted) throw new AbortedError();
        if (!isRetryableServerError(err)) throw err;
        await this.backOff(err as ApiError, attempt, signal);
      }
    }
  }

  /** Waits before retry `attempt + 1`; an abort ends the wait with AbortedError. */
  private async backOff(error: ApiError, attempt: number, signal: AbortSignal | undefined): Promise<void> {
    const delayMs = backoffDelay(attempt, this.retry);
    this.logger.warn(
      { request: error.request, attempt: attempt + 1, delayMs, error: error.message },
      'server call failed; retrying',
    );
    try {
      await delay(delayMs, undefined, signal ? { signal } : undefined);
    } catch {
      throw new AbortedError();
    }
  }

  /** Every file and directory of a workflow workspace. */
  listFiles(workflowId: string, signal?: AbortSignal): Promise<FileEntry[]> {
    return this.call(
      (s) =>
        this.client.request(`${workflowPath(workflowId)}/files`, FileListSchema, {
          query: { path: '', recursive: 1 },
          signal: s,
        }),
      signal,
    );
  }

  async downloadFile(workflowId: string, relPath: string, signal?: AbortSignal): Promise<Buffer> {
    const bytes = await this.call(
      (s) => this.client.requestBytes(`${this.filesPath(workflowId, relPath)}?raw`, { signal: s }),
      signal,
    );
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** `content` may be a Blob from `fs.openAsBlob`, which fetch streams from disk (again on a retry). */
  uploadFile(workflowId: string, relPath: string, content: Uint8Array | Blob, signal?: AbortSignal): Promise<void> {
    return this.call(
      (s) =>
        this.client.requestVoid(this.filesPath(workflowId, relPath), {
          method: 'PUT',
          body: content,
          contentType: 'application/octet-stream',
          signal: s,
        }),
      signal,
    );
  }

  /** A command's whole output, stored before the log entry that names it (decision 0073). */
  uploadCommandOutput(workflowId: string, name: string, content: Uint8Array, signal?: AbortSignal): Promise<void> {
    return this.call(
      (s) =>
        this.client.requestVoid(`${workflowPath(workflowId)}/command-outputs/${encodeURIComponent(name)}`, {
          method: 'PUT',
          body: content,
          contentType: 'application/octet-stream',
          signal: s,
        }),
      signal,
    );
  }

  deleteFile(workflowId: string, relPath: string, signal?: AbortSignal): Promise<void> {
    return this.call(
      (s) => this.client.requestVoid(this.filesPath(workflowId, relPath), { method: 'DELETE', signal: s }),
      signal,
    );
  }

  kbText(): Promise<string> {
    return this.call((s) => this.client.requestText('/kb', { signal: s }));
  }

  kbSearch(query: string, k = 5): Promise<KbSearchResult[]> {
    return this.call((s) =>
      this.client.request('/kb/search', KbSearchResponseSchema, { query: { q: query, k }, signal: s }),
    );
  }

  listWorkers(): Promise<Worker[]> {
    return this.call((s) => this.client.request('/workers', WorkerListSchema, { signal: s }));
  }

  listTemplates(): Promise<Template[]> {
    return this.call((s) => this.client.request('/templates', TemplateListSchema, { signal: s }));
  }

  useTemplate(workflowId: string, name: string): Promise<UseTemplateResponse> {
    const json: UseTemplateRequest = { name };
    return this.call((s) =>
      this.client.request(`${workflowPath(workflowId)}/template`, UseTemplateResponseSchema, {
        method: 'POST',
        json,
        signal: s,
      }),
    );
  }

  /** Retried like every call: a timer whose answer was lost may be created twice (it fires twice, harmlessly resuming). */
  createTimer(workflowId: string, seconds: number, reason: string): Promise<Timer> {
    const json: CreateTimerRequest = { seconds, reason };
    return this.call((s) =>
      this.client.request(`${workflowPath(workflowId)}/timers`, TimerSchema, { method: 'POST', json, signal: s }),
    );
  }

  requestJobToken(workflowId: string, signal?: AbortSignal): Promise<TokenResponse> {
    const json: TokenRequest = { scope: 'job', workflow_id: workflowId };
    return this.call(
      (s) => this.client.request('/token', TokenResponseSchema, { method: 'POST', json, signal: s }),
      signal,
    );
  }
}
