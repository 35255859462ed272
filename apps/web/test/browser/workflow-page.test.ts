import type { Page } from 'playwright-core';
import type { UpdateBody, Workflow } from '@svc/protocol';
import { describeInChromium, launchChromium } from '../support/chromium';
import { eventually } from '@svc/test-kit';
import { createProjectInUi, expectText, signIn, stepStatuses } from '../support/pages';
import { expectJson, startWebServer, startWorker, type TestServer, type TestWorker } from '../support/server';

jest.setTimeout(60_000);

/** Screenshots a person looks at to check the page renders sensibly (the test checks the DOM). */
const SCREENSHOTS = {
  workflow: '/tmp/svc-web-workflow.png',
  question: '/tmp/svc-web-question.png',
  report: '/tmp/svc-web-report.png',
};
const REQUIREMENT = 'Build a shop\n  - with a cart 🛒\n  - and payments in €\n\nKeep it small.';

const plan = (
  phase: 'planning' | 'executing' | 'completed',
  current: number | null,
  statuses: ('done' | 'running' | 'pending')[],
): UpdateBody => ({
  kind: 'snapshot',
  data: {
    phase,
    current_step: current,
    memo: [],
    steps: [
      { title: 'Scaffold the shop', description: 'Vite + React app in ./shop' },
      { title: 'Build the cart', description: 'Add, remove, total in €' },
      { title: 'Add payments', description: 'A fake checkout page' },
    ].map((step, i) => ({ ...step, status: statuses[i]! })),
  },
});

describeInChromium('workflow page in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let worker: TestWorker;
  let workerBearer: string;
  let workflowId = '';
  let seq = 0;
  /** Sends the next worker update for the workflow and waits until the server stored it. */
  const store = async (body: UpdateBody) => expect((await worker.store(workflowId, ++seq, body)).type).toBe('ack');

  beforeAll(async () => {
    server = await startWebServer();
    ({ worker, token: workerBearer } = await startWorker(server, 'browser-worker'));
    browser = await launchChromium();
    page = await browser.context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    worker?.close();
    await server?.close();
  });

  it('signs in with the dev form and creates a project that the URL selects', async () => {
    await signIn(page, server.url, 'alice');
    const projectId = await createProjectInUi(page, 'Shop');
    expect(new URL(page.url()).pathname).toBe(`/projects/${projectId}`);
    await page.getByRole('link', { name: 'Shop' }).and(page.locator('.active')).waitFor();
  });

  it('creates a workflow from a multi-line requirement, lists it, and keeps its line breaks on its page', async () => {
    await page.getByRole('textbox', { name: 'Requirement' }).fill(REQUIREMENT);
    await page.getByRole('button', { name: 'Start workflow' }).click();
    // starting opens the new run's page; the project's list has it too
    await page.waitForURL(/\/workflows\/[^/]+$/);
    workflowId = decodeURIComponent(page.url().split('/workflows/')[1]!);
    await page.goBack();
    const item = page.locator('.workflow-item', { hasText: 'Build a shop' });
    await item.waitFor();
    expect(await item.getAttribute('data-workflow-id')).toBe(workflowId);
    await expectText(item.locator('[data-status]'), 'Pending');
    await worker.dispatch(workflowId, 'start');

    await item.getByRole('link', { name: 'Build a shop' }).click();
    const requirement = page.getByTestId('requirement');
    await requirement.waitFor();
    // innerText is what is rendered: with white-space collapsing, the line breaks would be gone.
    expect(await requirement.innerText()).toBe(REQUIREMENT);
    expect(await requirement.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('pre-wrap');
  });

  it('renders the plan from GET /plan after a snapshot is stored', async () => {
    await expectText(page.locator('section[aria-labelledby="plan-heading"] .empty'), /No plan yet/);
    await store({ kind: 'status', data: { status: 'running' } });
    await store(plan('executing', 0, ['running', 'pending', 'pending']));
    await page.reload();
    await page.locator('.plan-step-title', { hasText: 'Scaffold the shop' }).waitFor();
    expect(await page.locator('.plan-step-title').allInnerTexts()).toEqual([
      'Scaffold the shop',
      'Build the cart',
      'Add payments',
    ]);
    expect(await stepStatuses(page)).toEqual(['running', 'pending', 'pending']);
  });

  it('shows plan step changes live, without reloading', async () => {
    // Once the server confirmed the subscription, changes can only arrive as live events.
    await page.locator('[data-following="true"]').waitFor();
    await page.evaluate(() => ((window as unknown as { svcMarker: string }).svcMarker = 'same page'));
    await store(plan('executing', 1, ['done', 'running', 'pending']));
    await eventually(async () => expect(await stepStatuses(page)).toEqual(['done', 'running', 'pending']));
    await expectText(page.getByTestId('plan-count'), '1 of 3 done');
    expect(await page.evaluate(() => (window as unknown as { svcMarker?: string }).svcMarker)).toBe('same page');
  });

  it('appends log entries live with the command as a shell line, and counts LLM calls', async () => {
    await store({
      kind: 'log_entry',
      data: {
        step_index: 1,
        tool_name: 'execute_on_worker',
        tool_input: { command: 'npm test', timeout_seconds: 120 },
        output: 'Tests: 12 passed',
        is_error: false,
      },
    });
    const entry = page.locator('.log-entry', { hasText: 'npm test' });
    await entry.waitFor();
    expect(await entry.locator('.log-command').innerText()).toBe('$ npm test');
    // the full input stays one click away (folded: its text is there, not rendered)
    expect(await entry.locator('.log-input pre').textContent()).toBe('command: npm test\ntimeout_seconds: 120\n');
    expect(await entry.locator('.log-output').innerText()).toBe('Tests: 12 passed');

    await store({
      kind: 'llm_call',
      data: {
        phase: 'executing',
        model: 'scripted-llm',
        prompt_tokens: 1200,
        completion_tokens: 345,
        latency_ms: 850,
        step_index: 1,
      },
    });
    await store({
      kind: 'llm_call',
      data: {
        phase: 'executing',
        model: 'scripted-llm',
        prompt_tokens: 800,
        completion_tokens: 55,
        latency_ms: 400,
        step_index: 1,
      },
    });
    // A failed attempt whose endpoint sent no usage: unknown, not 0, and its error shown.
    await store({
      kind: 'llm_call',
      data: {
        phase: 'executing',
        model: 'scripted-llm',
        prompt_tokens: null,
        completion_tokens: null,
        latency_ms: 50,
        step_index: 1,
        attempt: 2,
        error: 'HTTP 503: 503 overloaded',
        finish_reason: null,
      },
    });
    await page.getByRole('tab', { name: 'LLM calls' }).click();
    await expectText(page.locator('[data-total="prompt_tokens"]'), '2,000');
    await expectText(page.locator('[data-total="completion_tokens"]'), '400');
    await expectText(
      page.locator('[data-total="notes"]'),
      '1 failed; usage unknown for 1 (token sums count the known ones)',
    );
    const rows = page.locator('.table.numbers tbody tr');
    expect(await rows.count()).toBe(3);
    const failed = rows.filter({ hasText: 'HTTP 503' });
    expect(await failed.locator('td').nth(4).innerText()).toBe('—');
    expect(await failed.locator('td').nth(5).innerText()).toBe('—');
    expect(await failed.locator('td.llm-outcome').innerText()).toBe('attempt 2: failed: HTTP 503: 503 overloaded');
  });

  it('asks the user when the agent does and sends the answer to the worker', async () => {
    await store({ kind: 'status', data: { status: 'waiting_user', question: 'Which currency should prices use?' } });
    await page.getByRole('heading', { name: 'The agent asks' }).waitFor();
    await expectText(page.locator('.question'), 'Which currency should prices use?');
    await page.screenshot({ path: SCREENSHOTS.question, fullPage: true });
    await page.getByRole('textbox', { name: 'Your answer' }).fill('Euro,\nwith two decimals');
    await page.getByRole('button', { name: 'Send answer' }).click();
    expect((await worker.dispatch(workflowId, 'answer')).message).toBe('Euro,\nwith two decimals');
    await page.getByRole('heading', { name: 'The agent asks' }).waitFor({ state: 'detached' });
    await expectText(page.locator('.run-head [data-status]'), 'Running');
  });

  it('shows the rendered report with the app link, and the workspace files', async () => {
    const put = await server.request(`/svc/api/workflows/${workflowId}/files/report.md`, {
      method: 'PUT',
      as: workerBearer,
      body: '# Shop report\n\nThe shop is **ready**.\n',
    });
    expect(put.status).toBe(201);
    await store(plan('completed', null, ['done', 'done', 'done']));
    await store({ kind: 'report', data: { path: 'report.md', app_url: 'http://apps.local/shop' } });
    await store({ kind: 'status', data: { status: 'completed' } });
    await expectText(page.locator('.run-head [data-status]'), 'Completed');
    expect(await stepStatuses(page)).toEqual(['done', 'done', 'done']);

    // the capability link when the server makes one (CONTRACT-V2 app_link), else the worker's app URL
    const stored = await expectJson<Workflow & { app_link?: string | null }>(
      await server.request(`/svc/api/workflows/${workflowId}`, { as: await server.login('alice') }),
      200,
    );
    const appLink = stored.app_link ?? 'http://apps.local/shop';
    await page.getByRole('tab', { name: 'Report' }).click();
    const panel = page.getByRole('tabpanel');
    await expectText(panel.locator('.markdown h1'), 'Shop report');
    expect(await panel.locator('.markdown strong').innerText()).toBe('ready');
    expect(await panel.getByRole('link', { name: 'Open the app' }).getAttribute('href')).toBe(appLink);
    await page.getByRole('tablist').scrollIntoViewIfNeeded();
    await page.screenshot({ path: SCREENSHOTS.report });

    await page.getByRole('tab', { name: 'Files' }).click();
    const link = page.getByRole('link', { name: 'report.md', exact: true });
    expect(await link.getAttribute('href')).toBe(`/svc/api/workflows/${workflowId}/files/report.md`);
    expect(await link.getAttribute('target')).toBe('_blank');
  });

  it('looks right: a full-page screenshot of the workflow page', async () => {
    await page.getByRole('tab', { name: 'Execution log' }).click();
    await page.locator('.log-entry').first().waitFor();
    await page.screenshot({ path: SCREENSHOTS.workflow, fullPage: true });
    // the page fits the viewport's width: no horizontal scrolling
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  });

  it('sends feedback on a finished workflow to the worker, then cancels and retries it', async () => {
    await page.getByRole('textbox', { name: 'Ask for a change' }).fill('Add a wish list\nbelow the cart');
    await page.getByRole('button', { name: 'Send feedback' }).click();
    expect((await worker.dispatch(workflowId, 'feedback')).message).toBe('Add a wish list\nbelow the cart');
    await expectText(page.locator('.run-head [data-status]'), 'Pending');

    await page.getByRole('button', { name: 'Cancel workflow' }).click();
    await page.getByRole('button', { name: 'Yes, cancel' }).click();
    await expectText(page.locator('.run-head [data-status]'), 'Cancelled');
    await page.getByRole('button', { name: 'Retry' }).click();
    await expectText(page.locator('.run-head [data-status]'), 'Pending');
    const stored = await expectJson<Workflow>(
      await server.request(`/svc/api/workflows/${workflowId}`, { as: await server.login('alice') }),
      200,
    );
    expect(stored.status).toBe('pending');
  });
});
