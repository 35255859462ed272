import { encodePath, SvcClient, workflowPath } from '@svc/client';
import {
  TimerSchema,
  TokenResponseSchema,
  UseTemplateResponseSchema,
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

export { ApiError } from '@svc/client';

export interface ServerApiOptions {
  serverUrl: string;
  token: string;
  /** Per-request time-out. */
  timeoutMs?: number;
}

/** The REST endpoints a worker calls with its worker token (docs/decisions.md). */
export class ServerApi {
  private readonly client: SvcClient;

  constructor(options: ServerApiOptions) {
    this.client = new SvcClient({
      baseUrl: options.serverUrl,
      auth: { bearer: options.token },
      timeoutMs: options.timeoutMs ?? 60_000,
    });
  }

  private filesPath(workflowId: string, relPath: string): string {
    return `${workflowPath(workflowId)}/files/${encodePath(relPath)}`;
  }

  /** Every file and directory of a workflow workspace. */
  listFiles(workflowId: string): Promise<FileEntry[]> {
    return this.client.listFiles(workflowId, { recursive: true });
  }

  async downloadFile(workflowId: string, relPath: string): Promise<Buffer> {
    const bytes = await this.client.requestBytes(`${this.filesPath(workflowId, relPath)}?raw`);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** `content` may be a Blob from `fs.openAsBlob`, which fetch streams from disk. */
  uploadFile(workflowId: string, relPath: string, content: Uint8Array | Blob): Promise<void> {
    return this.client.requestVoid(this.filesPath(workflowId, relPath), {
      method: 'PUT',
      body: content,
      contentType: 'application/octet-stream',
    });
  }

  deleteFile(workflowId: string, relPath: string): Promise<void> {
    return this.client.requestVoid(this.filesPath(workflowId, relPath), { method: 'DELETE' });
  }

  kbText(): Promise<string> {
    return this.client.requestText('/kb');
  }

  kbSearch(query: string, k = 5): Promise<KbSearchResult[]> {
    return this.client.searchKb(query, k);
  }

  listWorkers(): Promise<Worker[]> {
    return this.client.listWorkers();
  }

  listTemplates(): Promise<Template[]> {
    return this.client.listTemplates();
  }

  useTemplate(workflowId: string, name: string): Promise<UseTemplateResponse> {
    const json: UseTemplateRequest = { name };
    return this.client.request(`${workflowPath(workflowId)}/template`, UseTemplateResponseSchema, {
      method: 'POST',
      json,
    });
  }

  createTimer(workflowId: string, seconds: number, reason: string): Promise<Timer> {
    const json: CreateTimerRequest = { seconds, reason };
    return this.client.request(`${workflowPath(workflowId)}/timers`, TimerSchema, { method: 'POST', json });
  }

  requestJobToken(workflowId: string): Promise<TokenResponse> {
    const json: TokenRequest = { scope: 'job', workflow_id: workflowId };
    return this.client.request('/token', TokenResponseSchema, { method: 'POST', json });
  }
}
