import type { Page } from 'playwright-core';
import type { Workflow } from '@svc/protocol';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, expectText, signIn } from '../support/pages';
import { expectJson, startWebServer, startWorker, type TestServer, type TestWorker } from '../support/server';
import { expectStatus, openRun, runUrl, ScriptedRun } from './run-support';

jest.setTimeout(90_000);

const QUESTION = 'Budget reached: LLM calls 1/1. Raise the budget to continue.';

// Issue 23, budgets in the web app: spend against budget on the run page, the raise form when the run is
// paused by it, and the project's default budget.
describeInChromium('budgets in the web app (Chromium, real server)', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let worker: TestWorker;
  let alice = '';
  let projectId = '';

  beforeAll(async () => {
    server = await startWebServer();
    ({ worker } = await startWorker(server, 'budget-worker', 5));
    browser = await launchChromium();
    page = await browser.context.newPage();
    await signIn(page, server.url, 'alice');
    alice = await server.login('alice');
    projectId = await createProjectInUi(page, 'Budgets');
  });

  afterAll(async () => {
    await browser?.close();
    worker?.close();
    await server?.close();
  });

  it("saves the project's default budget from the project page", async () => {
    const form = page.getByRole('form', { name: 'Default run budget' });
    await form.getByRole('spinbutton', { name: 'Tokens' }).fill('5000');
    await form.getByRole('button', { name: 'Save default' }).click();
    await form.getByRole('status').waitFor();
    await auditPage(page, 'project-budget-saved');
    const saved = await expectJson<{ budget: unknown }>(
      await server.request(`/svc/api/projects/${projectId}/budget`, { as: alice }),
      200,
    );
    expect(saved.budget).toEqual({ max_tokens: 5000, on_exceed: 'pause' });
  });

  it('shows spend against the budget and raises it from the run page, which resumes the run', async () => {
    const created = await expectJson<Workflow>(
      await server.request(`/svc/api/projects/${projectId}/workflows`, {
        as: alice,
        json: { requirement: 'Count', budget: { max_llm_calls: 1 } },
      }),
      201,
    );
    await worker.dispatch(created.id, 'start');
    const run = new ScriptedRun(created.id, worker);
    await run.status('running');
    await run.store({
      kind: 'llm_call',
      data: { phase: 'executing', model: 'm', prompt_tokens: 10, completion_tokens: 5, latency_ms: 10, step_index: 0 },
    });
    await run.store({
      kind: 'status',
      data: { status: 'waiting_user', question: QUESTION, budget_exceeded: ['max_llm_calls'] },
    });
    await openRun(page, runUrl(server, projectId, created.id));
    const budget = page.getByRole('region', { name: 'Budget' });
    await expectText(budget.locator('.budget-row.reached dd span'), '1 / 1 — reached');
    await auditPage(page, 'run-budget-reached');

    const form = page.getByRole('form', { name: 'Raise the budget' });
    await form.getByRole('spinbutton', { name: 'LLM calls' }).fill('5');
    await form.getByRole('button', { name: 'Raise budget' }).click();
    await expectStatus(page, 'Running');
    await expectText(budget.locator('.budget-row dd span'), '1 / 5');
    await form.waitFor({ state: 'detached' });
  });
});
