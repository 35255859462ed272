import type { Page } from 'playwright-core';
import { eventually, snapshot } from '@svc/test-kit';
import type { OutputLineTimes, UpdateBody, Workflow } from '@svc/protocol';
import { launchChromium } from './chromium';
import { signIn } from './pages';
import { expectJson, startWebServer, startWorker, TestWorker, type TestServer } from './server';

/**
 * Starts, steers and reads runs of one project through the real REST API and a scripted worker on
 * the real worker socket.
 */
export class RunFixtures {
  private readonly seqs = new Map<string, number>();

  constructor(
    private readonly server: TestServer,
    private worker: TestWorker,
    private readonly cookie: string,
    readonly projectId: string,
  ) {}

  /** Goes on with another connection of the worker (after the server restarted), its seqs where they were. */
  useWorker(worker: TestWorker): void {
    this.worker = worker;
  }

  /** Creates a run as the user and waits until the worker was given it. */
  async create(requirement: string): Promise<Workflow> {
    const run = await expectJson<Workflow>(
      await this.server.request(`/svc/api/projects/${this.projectId}/workflows`, {
        method: 'POST',
        as: this.cookie,
        json: { requirement },
      }),
      201,
    );
    await this.worker.dispatch(run.id, 'start');
    return run;
  }

  /** Sends the worker's next update for the run and waits until the server stored it (the ack). */
  async store(runId: string, body: UpdateBody): Promise<void> {
    const seq = (this.seqs.get(runId) ?? 0) + 1;
    this.seqs.set(runId, seq);
    const answer = await this.worker.store(runId, seq, body);
    if (answer.type !== 'ack') throw new Error(`update ${seq} of ${runId} refused: ${JSON.stringify(answer)}`);
  }

  /** Running with `done` of `total` steps done (the list's progress comes from this snapshot). */
  async running(runId: string, done: number, total: number): Promise<void> {
    await this.store(runId, { kind: 'status', data: { status: 'running' } });
    const steps = Array.from({ length: total }, (_, i) => (i < done ? 'done' : i === done ? 'running' : 'pending'));
    await this.store(runId, done < total ? snapshot('executing', done, steps) : snapshot('completed', null, steps));
  }

  async waiting(runId: string, question: string): Promise<void> {
    await this.store(runId, { kind: 'status', data: { status: 'waiting_user', question } });
  }

  async title(runId: string, title: string): Promise<void> {
    await this.store(runId, { kind: 'title', data: { title } });
  }

  async finish(runId: string, status: 'completed' | 'failed', error?: string): Promise<void> {
    await this.store(runId, { kind: 'status', data: { status, ...(error ? { error } : {}) } });
  }

  async cancel(runId: string): Promise<void> {
    const res = await this.server.request(`/svc/api/workflows/${runId}/cancel`, { method: 'POST', as: this.cookie });
    if (res.status !== 200) throw new Error(`cancel: HTTP ${res.status} ${await res.text()}`);
  }

  async get(runId: string): Promise<Workflow> {
    return expectJson<Workflow>(await this.server.request(`/svc/api/workflows/${runId}`, { as: this.cookie }), 200);
  }

  /** Every run of the project whose title or requirement contains `q`. */
  async search(q: string): Promise<Workflow[]> {
    const page = await expectJson<{ items: Workflow[] }>(
      await this.server.request(`/svc/api/projects/${this.projectId}/workflows?q=${encodeURIComponent(q)}`, {
        as: this.cookie,
      }),
      200,
    );
    return page.items;
  }
}

/**
 * One signed-in page on a running workflow of a real server, driven by a scripted worker over the
 * real protocol: the set-up the log, LLM-call, files and live-output suites share.
 */
export interface RunFixture {
  server: TestServer;
  worker: TestWorker;
  workerBearer: string;
  browser: Awaited<ReturnType<typeof launchChromium>>;
  page: Page;
  cookie: string;
  projectId: string;
  workflowId: string;
  /** Sends the next update and waits until the server stored it (the ack), failing on a refusal. */
  store(body: UpdateBody): Promise<void>;
  /** The workflow page, with `?tab=` and other query parameters. */
  open(query?: string): Promise<void>;
  /** Connects the worker again (under the same name, so it holds its runs still) and sends through it from now on. */
  reconnectWorker(): Promise<void>;
  close(): Promise<void>;
}

/** `env` adds to the server's environment (e.g. a longer worker lease). */
export async function startRunFixture(login: string, env: Record<string, string> = {}): Promise<RunFixture> {
  const server = await startWebServer(env);
  const workerName = `${login}-worker`;
  const started = await startWorker(server, workerName);
  let worker = started.worker;
  const workerBearer = started.token;
  const browser = await launchChromium();
  const page = await browser.context.newPage();
  // a missing element fails the step with its locator instead of the whole test's time-out
  page.setDefaultTimeout(15_000);
  await signIn(page, server.url, login);
  const cookie = await server.login(login);
  const project = await expectJson<{ id: string }>(
    await server.request('/svc/api/projects', { as: cookie, json: { name: 'Shop' } }),
    201,
  );
  const runs = new RunFixtures(server, worker, cookie, project.id);
  const workflow = await runs.create('Build a shop with a cart');
  return {
    server,
    get worker() {
      return worker;
    },
    workerBearer,
    browser,
    page,
    cookie,
    projectId: project.id,
    workflowId: workflow.id,
    store: (body) => runs.store(workflow.id, body),
    async open(query = '') {
      await page.goto(`${server.url}/projects/${project.id}/workflows/${workflow.id}${query}`);
      await page.locator('[data-following="true"]').waitFor();
    },
    async reconnectWorker() {
      worker.close();
      worker = await TestWorker.start(server, workerBearer, workerName, 5);
      worker.keepAlive();
      runs.useWorker(worker);
    },
    async close() {
      await browser.close();
      worker.close();
      await server.close();
    },
  };
}

/** A one-file diff, as a step's `patch` update carries it. */
export const CART_PATCH = [
  'diff --git a/shop/cart.ts b/shop/cart.ts',
  '--- a/shop/cart.ts',
  '+++ b/shop/cart.ts',
  '@@ -1,2 +1,2 @@',
  ' export const items = [];',
  '-export const total = 0;',
  '+export const total = items.length;',
  '',
].join('\n');

export const threeStepPlan = (current: number, statuses: ('done' | 'running' | 'pending')[]): UpdateBody => ({
  kind: 'snapshot',
  data: {
    phase: 'executing',
    current_step: current,
    memo: [],
    steps: [
      { title: 'Scaffold the shop', description: 'Vite app in ./shop' },
      { title: 'Build the cart', description: 'Add, remove, total' },
      { title: 'Add payments', description: 'A fake checkout' },
    ].map((step, i) => ({ ...step, status: statuses[i]! })),
  },
});

/** A `log_entry` update. */
export const logUpdate = (
  stepIndex: number | null,
  toolName: string,
  input: Record<string, unknown>,
  output: string,
  extra: { is_error?: boolean; duration_ms?: number; output_line_times?: OutputLineTimes } = {},
): UpdateBody => ({
  kind: 'log_entry',
  data: { step_index: stepIndex, tool_name: toolName, tool_input: input, output, is_error: false, ...extra },
});

/** The data-workflow-id of every run the project page's list shows, in order. */
export async function listedRunIds(page: Page): Promise<string[]> {
  return page
    .locator('.workflow-list .workflow-item')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-workflow-id') ?? ''));
}

/** Waits until the list shows exactly `ids` (in order). */
export async function expectListed(page: Page, ids: string[]): Promise<void> {
  await eventually(async () => expect(await listedRunIds(page)).toEqual(ids));
}
