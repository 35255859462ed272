import type {
  ExecutionLogEntry,
  LlmCallLog,
  LlmCallTotals,
  PlanStepInfo,
  Worker,
  Workflow,
  WorkflowStatus,
} from '@svc/protocol';
import { StopWaiting, waitUntil } from './e2e-wait';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what}: HTTP ${status} ${body.slice(0, 500)}`);
  }
}

/** A signed-in user of the real API (dev login session cookie), speaking the REST contract. */
export class ApiClient {
  private constructor(
    readonly baseUrl: string,
    readonly login: string,
    readonly cookie: string,
  ) {}

  /** Signs in through `POST /svc/auth/dev-login`, the way the dev login form does. */
  static async signIn(baseUrl: string, login: string): Promise<ApiClient> {
    const res = await fetch(`${baseUrl}/svc/auth/dev-login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ login }),
      redirect: 'manual',
    });
    if (res.status !== 200) throw new HttpError(res.status, await res.text(), `dev login of ${login}`);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('svc_session='));
    if (!cookie) throw new Error('dev login set no svc_session cookie');
    return new ApiClient(baseUrl, login, cookie.split(';')[0] as string);
  }

  async fetch(path: string, init: { method?: string; json?: unknown } = {}): Promise<Response> {
    const headers: Record<string, string> = { cookie: this.cookie };
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${this.baseUrl}/svc/api${path}`, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      headers,
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  }

  async json<T>(path: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
    const res = await this.fetch(path, init);
    const text = await res.text();
    if (!res.ok)
      throw new HttpError(res.status, text, `${init.method ?? (init.json === undefined ? 'GET' : 'POST')} ${path}`);
    return JSON.parse(text) as T;
  }

  async text(path: string): Promise<string> {
    const res = await this.fetch(path);
    const text = await res.text();
    if (!res.ok) throw new HttpError(res.status, text, `GET ${path}`);
    return text;
  }

  /** A worker-scope token from `POST /svc/api/token` (needs an administrator). */
  async workerToken(): Promise<string> {
    return (await this.json<{ token: string }>('/token', { json: { scope: 'worker' } })).token;
  }

  async createProject(name: string): Promise<{ id: string }> {
    return this.json('/projects', { json: { name } });
  }

  async createWorkflow(
    projectId: string,
    requirement: string,
    options: { worker_id?: string } = {},
  ): Promise<Workflow> {
    return this.json(`/projects/${projectId}/workflows`, { json: { requirement, ...options } });
  }

  /** The id `GET /workers` lists for a worker name. */
  async workerId(name: string): Promise<string> {
    const worker = (await this.json<Worker[]>('/workers')).find((w) => w.name === name);
    if (!worker) throw new Error(`no worker named ${name} is registered`);
    return worker.id;
  }

  workflow(id: string): Promise<Workflow> {
    return this.json(`/workflows/${id}`);
  }

  plan(id: string): Promise<PlanStepInfo[]> {
    return this.json(`/workflows/${id}/plan`);
  }

  async log(id: string): Promise<ExecutionLogEntry[]> {
    return this.allPages<ExecutionLogEntry>(`/workflows/${id}/log`);
  }

  async llmCalls(id: string): Promise<{ items: LlmCallLog[]; totals: LlmCallTotals }> {
    const first = await this.json<{ totals: LlmCallTotals }>(`/workflows/${id}/llm-calls?limit=1`);
    return { items: await this.allPages<LlmCallLog>(`/workflows/${id}/llm-calls`), totals: first.totals };
  }

  /** A workspace file's bytes as text, as the server holds them (`?raw`: `.md` not rendered). */
  file(id: string, filePath: string): Promise<string> {
    return this.text(`/workflows/${id}/files/${filePath.split('/').map(encodeURIComponent).join('/')}?raw`);
  }

  report(id: string): Promise<string> {
    return this.text(`/workflows/${id}/report`);
  }

  /** Every item of a paginated list, following `next_cursor`. */
  private async allPages<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: { items: T[]; next_cursor: string | null } = await this.json(`${path}?${query}`);
      items.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor);
    return items;
  }

  /** Waits for the workflow to reach `status`; a terminal status that is not the wanted one fails at once. */
  async waitForStatus(id: string, status: WorkflowStatus, timeoutMs = 60_000): Promise<Workflow> {
    let last: Workflow | undefined;
    return waitUntil(
      async () => {
        last = await this.workflow(id);
        if (last.status === status) return last;
        if (['completed', 'failed', 'cancelled'].includes(last.status)) {
          throw new StopWaiting(`workflow ${id} ended ${last.status} while waiting for ${status}: ${last.error ?? ''}`);
        }
        return undefined;
      },
      {
        what: `workflow ${id} to be ${status}`,
        timeoutMs,
        intervalMs: 100,
        detail: () => `last seen: ${JSON.stringify(last)}`,
      },
    );
  }
}
