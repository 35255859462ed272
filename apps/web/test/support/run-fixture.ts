import type { Page } from 'playwright-core';
import type { UpdateBody } from '@svc/protocol';
import { launchChromium } from './chromium';
import { signIn } from './pages';
import { expectJson, startWebServer, startWorker, type TestServer, type TestWorker } from './server';

/**
 * One signed-in page on a running workflow of a real server, driven by a scripted worker over the
 * real protocol: the set-up the log, LLM-call and files suites share.
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
  store(body: UpdateBody | Record<string, unknown>): Promise<void>;
  /** The workflow page, with `?tab=` and other query parameters. */
  open(query?: string): Promise<void>;
  close(): Promise<void>;
}

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

export async function startRunFixture(login: string): Promise<RunFixture> {
  const server = await startWebServer();
  const { worker, token: workerBearer } = await startWorker(server, `${login}-worker`);
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
  const workflow = await expectJson<{ id: string }>(
    await server.request(`/svc/api/projects/${project.id}/workflows`, {
      as: cookie,
      json: { requirement: 'Build a shop with a cart' },
    }),
    201,
  );
  await worker.dispatch(workflow.id, 'start');
  let seq = 0;
  const fixture: RunFixture = {
    server,
    worker,
    workerBearer,
    browser,
    page,
    cookie,
    projectId: project.id,
    workflowId: workflow.id,
    async store(body) {
      const answer = await worker.store(workflow.id, ++seq, body as UpdateBody);
      if (answer.type !== 'ack') throw new Error(`update refused: ${JSON.stringify(answer)}`);
    },
    async open(query = '') {
      await page.goto(`${server.url}/projects/${project.id}/workflows/${workflow.id}${query}`);
      await page.locator('[data-following="true"]').waitFor();
    },
    async close() {
      await browser.close();
      worker.close();
      await server.close();
    },
  };
  return fixture;
}

/** A `log_entry` update; `extra` carries CONTRACT-V2 fields (duration_ms) a server may not know yet. */
export const logUpdate = (
  stepIndex: number | null,
  toolName: string,
  input: Record<string, unknown>,
  output: string,
  extra: { is_error?: boolean; duration_ms?: number } = {},
): Record<string, unknown> => ({
  kind: 'log_entry',
  data: { step_index: stepIndex, tool_name: toolName, tool_input: input, output, is_error: false, ...extra },
});
