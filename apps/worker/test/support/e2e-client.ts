import type {
  ExecutionLogEntry,
  LlmCallLog,
  LlmCallTotals,
  PlanStepInfo,
  Worker,
  Workflow,
  WorkflowStatus,
} from '@svc/protocol';
import { eventually, HttpError, Session, signIn, StopWaiting } from '@svc/test-kit';

export { HttpError };

/** A signed-in user of the real API (dev login session cookie), speaking the REST contract. */
export class ApiClient extends Session {
  private constructor(
    baseUrl: string,
    readonly login: string,
    readonly cookie: string,
  ) {
    super(baseUrl, cookie);
  }

  /** Signs in through `POST /svc/auth/dev-login`, the way the dev login form does. */
  static override async signIn(baseUrl: string, login: string): Promise<ApiClient> {
    return new ApiClient(baseUrl, login, await signIn(baseUrl, login));
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
  /** `giveUpAfterMs`: a hang guard below the test's own time limit, so a stuck run fails with its details. */
  async waitForStatus(id: string, status: WorkflowStatus, giveUpAfterMs?: number): Promise<Workflow> {
    let last: Workflow | undefined;
    return eventually(
      async () => {
        last = await this.workflow(id);
        if (last.status === status) return last;
        if (['completed', 'failed', 'cancelled'].includes(last.status)) {
          throw new StopWaiting(`workflow ${id} ended ${last.status} while waiting for ${status}: ${last.error ?? ''}`);
        }
        return false;
      },
      {
        what: `workflow ${id} to be ${status}`,
        intervalMs: 100,
        giveUpAfterMs,
        detail: () => `last seen: ${JSON.stringify(last)}`,
      },
    );
  }
}
