import {
  ErrorBodySchema,
  FileEntrySchema,
  KbSearchResultSchema,
  parseWith,
  TemplateSchema,
  TokenResponseSchema,
  WorkerSchema,
  type FileEntry,
  type KbSearchResult,
  type Template,
  type TokenResponse,
  type Worker,
} from '@svc/protocol';
import { z } from 'zod';

/** A failed REST call; `code` is the server's error code (or `network` / `bad_response`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ServerApiOptions {
  serverUrl: string;
  token: string;
  /** Per-request time-out. */
  timeoutMs?: number;
}

/** A list either bare or as a page; the worker only reads the first page of small lists. */
function listOf<T extends z.ZodType>(item: T) {
  return z.union([z.array(item), z.object({ items: z.array(item) }).transform((p) => p.items)]);
}

const encodePath = (rel: string): string => rel.split('/').map(encodeURIComponent).join('/');

/** The REST endpoints a worker calls with its worker token (docs/decisions.md). */
export class ServerApi {
  private readonly base: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: ServerApiOptions) {
    this.base = options.serverUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  private async request(
    method: string,
    path: string,
    body?: string | Uint8Array | Blob,
    contentType?: string,
  ): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.token}` };
    if (contentType) headers['content-type'] = contentType;
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, { method, headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      throw new ApiError(0, 'network', `${method} ${path} failed: ${(err as Error).message}`);
    }
    if (res.ok) return res;
    const text = await res.text().catch(() => '');
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      parsedBody = undefined;
    }
    const parsed = parseWith(ErrorBodySchema, parsedBody);
    if (parsed.ok)
      throw new ApiError(res.status, parsed.value.error.code, `${method} ${path}: ${parsed.value.error.message}`);
    throw new ApiError(res.status, 'http_error', `${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`.trim());
  }

  private async json<T extends z.ZodType>(
    schema: T,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<z.output<T>> {
    const res = await this.request(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      body === undefined ? undefined : 'application/json',
    );
    const parsed = parseWith(schema, await res.json().catch(() => undefined));
    if (!parsed.ok)
      throw new ApiError(
        res.status,
        'bad_response',
        `${method} ${path}: unexpected response (${parsed.error.message})`,
      );
    return parsed.value;
  }

  private filesPath(workflowId: string): string {
    return `/svc/api/workflows/${encodeURIComponent(workflowId)}/files`;
  }

  /** Every file and directory of a workflow workspace. */
  listFiles(workflowId: string): Promise<FileEntry[]> {
    return this.json(listOf(FileEntrySchema), 'GET', `${this.filesPath(workflowId)}?path=&recursive=1`);
  }

  async downloadFile(workflowId: string, relPath: string): Promise<Buffer> {
    const res = await this.request('GET', `${this.filesPath(workflowId)}/${encodePath(relPath)}?raw`);
    return Buffer.from(await res.arrayBuffer());
  }

  /** `content` may be a Blob from `fs.openAsBlob`, which fetch streams from disk. */
  async uploadFile(workflowId: string, relPath: string, content: Uint8Array | Blob): Promise<void> {
    await this.request(
      'PUT',
      `${this.filesPath(workflowId)}/${encodePath(relPath)}`,
      content,
      'application/octet-stream',
    );
  }

  async deleteFile(workflowId: string, relPath: string): Promise<void> {
    await this.request('DELETE', `${this.filesPath(workflowId)}/${encodePath(relPath)}`);
  }

  async kbText(): Promise<string> {
    return (await this.request('GET', '/svc/api/kb')).text();
  }

  kbSearch(query: string, k = 5): Promise<KbSearchResult[]> {
    return this.json(listOf(KbSearchResultSchema), 'GET', `/svc/api/kb/search?q=${encodeURIComponent(query)}&k=${k}`);
  }

  listWorkers(): Promise<Worker[]> {
    return this.json(listOf(WorkerSchema), 'GET', '/svc/api/workers');
  }

  listTemplates(): Promise<Template[]> {
    return this.json(listOf(TemplateSchema), 'GET', '/svc/api/templates');
  }

  async useTemplate(workflowId: string, name: string): Promise<void> {
    await this.request(
      'POST',
      `/svc/api/workflows/${encodeURIComponent(workflowId)}/template`,
      JSON.stringify({ name }),
      'application/json',
    );
  }

  async createTimer(workflowId: string, seconds: number, reason: string): Promise<unknown> {
    const res = await this.request(
      'POST',
      `/svc/api/workflows/${encodeURIComponent(workflowId)}/timers`,
      JSON.stringify({ seconds, reason }),
      'application/json',
    );
    return res.json().catch(() => null);
  }

  requestJobToken(workflowId: string): Promise<TokenResponse> {
    return this.json(TokenResponseSchema, 'POST', '/svc/api/token', { scope: 'job', workflow_id: workflowId });
  }
}
