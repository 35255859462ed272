import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Workflow } from '@svc/protocol';
import type { Page, Request } from 'playwright-core';
import { eventually, startApiProcess } from '@svc/test-kit';

async function expectOk<T>(res: Response): Promise<T> {
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, expectText, signIn } from '../support/pages';
import { startWorker, WEB_DIST_DIR, type TestServer, type TestWorker } from '../support/server';
import { expectListed, RunFixtures } from '../support/runs';
import { templateClone } from '../support/templates';

jest.setTimeout(90_000);

const SECONDS = /\b\d{1,2}:\d{2}:\d{2}\b/;

describeInChromium('the project page and its run list in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let worker: TestWorker;
  let runs: RunFixtures;
  const templatesRoot = mkdtempSync(join(tmpdir(), 'svc-web-templates-'));
  const made: Record<string, Workflow> = {};
  const item = (run: Workflow) => page.locator(`.workflow-item[data-workflow-id="${run.id}"]`);

  beforeAll(async () => {
    const local = templateClone(templatesRoot, {
      main: 'Blank starter\n',
      react: '# Vite + React single-page app with a test set-up and a linter, ready to deploy\n\nMore text.\n',
    });
    server = await startApiProcess({
      provider: 'sqlite',
      // nothing listens on port 9: the server keeps serving its local copy of the templates
      env: { WEB_DIST_DIR, TEMPLATE_REPO_URL: 'http://127.0.0.1:9/templates.git', TEMPLATE_LOCAL_PATH: local },
    });
    ({ worker } = await startWorker(server, 'list-worker', 20));
    browser = await launchChromium();
    page = await browser.context.newPage();
    await signIn(page, server.url, 'olivia');
    const projectId = await createProjectInUi(page, 'Shop');
    runs = new RunFixtures(server, worker, await server.login('olivia'), projectId);

    made.pending = await runs.create('A pending landing page');
    made.running = await runs.create('A running invoice generator\nwith PDF export');
    await runs.running(made.running.id, 1, 3);
    made.waiting = await runs.create('A waiting shop with a cart');
    await runs.running(made.waiting.id, 0, 2);
    await runs.waiting(made.waiting.id, 'Which currency should prices use?');
    made.completed = await runs.create('A completed invoice mailer');
    await runs.running(made.completed.id, 3, 3);
    await runs.finish(made.completed.id, 'completed');
    made.failed = await runs.create('A failed blog');
    await runs.running(made.failed.id, 0, 2);
    await runs.finish(made.failed.id, 'failed', 'npm install failed');
    made.cancelled = await runs.create(`A cancelled ${'unbroken'.repeat(40)} requirement`);
    await runs.cancel(made.cancelled.id);
    await runs.title(made.cancelled.id, `Title${'WithoutSpaces'.repeat(12)}`);
    await page.reload();
  });

  afterAll(async () => {
    await browser?.close();
    worker?.close();
    await server?.close();
    rmSync(templatesRoot, { recursive: true, force: true });
  });

  it('shows each run with its number, status, progress, duration and start time to the second', async () => {
    const order = ['cancelled', 'failed', 'completed', 'waiting', 'running', 'pending'];
    await expectListed(
      page,
      order.map((key) => made[key]!.id),
    );
    for (const [key, run] of Object.entries(made)) {
      await expectText(item(run).locator('.run-number'), `#${run.number}`);
      expect(run.number).toBe(['pending', 'running', 'waiting', 'completed', 'failed', 'cancelled'].indexOf(key) + 1);
    }
    expect(await item(made.running!).getAttribute('data-status')).toBe('running');
    await expectText(item(made.running!).locator('[data-status]'), 'Running');
    await expectText(item(made.waiting!).locator('[data-status]'), 'Waiting for input');
    await expectText(item(made.running!).getByTestId('run-progress'), '1/3 steps');
    await expectText(item(made.completed!).getByTestId('run-progress'), '3/3 steps');
    expect(await item(made.pending!).getByTestId('run-progress').count()).toBe(0);

    await expectText(item(made.pending!).getByTestId('run-duration'), 'Not started yet');
    await expectText(item(made.running!).getByTestId('run-duration'), /^\d.* so far$/);
    await expectText(item(made.completed!).getByTestId('run-duration'), /^Took \d/);
    expect(await item(made.completed!).locator('.run-time').innerText()).toMatch(SECONDS);
    expect(await item(made.pending!).locator('.run-time').innerText()).toMatch(/^Created .*\d{1,2}:\d{2}:\d{2}/);
    expect(await item(made.running!).locator('.run-time').innerText()).toMatch(/^Started /);
  });

  it('passes the audit with runs in every status, at both sizes', async () => {
    await auditPage(page, 'project-page');
  });

  it('filters by status and searches on the server, and keeps both in the URL', async () => {
    const listRequests: string[] = [];
    const onRequest = (request: Request) => {
      if (request.url().includes('/workflows?')) listRequests.push(request.url());
    };
    page.on('request', onRequest);
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Waiting for input' });
    await expectListed(page, [made.waiting!.id]);
    expect(new URL(page.url()).searchParams.get('status')).toBe('waiting_user');
    expect(listRequests.some((url) => new URL(url).searchParams.get('status') === 'waiting_user')).toBe(true);

    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'All statuses' });
    await page.getByRole('searchbox', { name: 'Search' }).fill('INVOICE');
    await expectListed(page, [made.completed!.id, made.running!.id]);
    expect(listRequests.some((url) => new URL(url).searchParams.get('q') === 'INVOICE')).toBe(true);

    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Completed' });
    await expectListed(page, [made.completed!.id]);
    expect(new URL(page.url()).searchParams.get('q')).toBe('INVOICE');

    await page.getByRole('searchbox', { name: 'Search' }).fill('no such words');
    await page.getByText('No workflow matches.').waitFor();
    await auditPage(page, 'run-list-no-match');
    await page.getByRole('button', { name: 'Clear the filters' }).click();
    await expectListed(
      page,
      ['cancelled', 'failed', 'completed', 'waiting', 'running', 'pending'].map((k) => made[k]!.id),
    );
    expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('');
    page.off('request', onRequest);
  });

  it('shows who started each run, its worker (also of one given back), its question or failure, and the count', async () => {
    await expectText(page.getByTestId('run-count'), '1–6 of 6');
    await expectText(item(made.running!).getByTestId('run-author'), 'Started by olivia');
    await expectText(item(made.running!).getByTestId('run-worker'), 'on list-worker');
    await expectText(item(made.waiting!).getByTestId('run-question'), 'Asks: Which currency should prices use?');
    await expectText(item(made.failed!).getByTestId('run-error'), 'Failed: npm install failed');

    // Its worker gives the running run back to the queue (a timer keeps it from being taken again): no
    // worker holds it now, and the list names the one it last ran on, as "Ran on" finds it (decision 0082).
    const olivia = await server.login('olivia');
    const timer = await server.request(`/svc/api/workflows/${made.running!.id}/timers`, {
      as: olivia,
      json: { seconds: 3600, reason: 'Wait for the certificate' },
    });
    expect(timer.status).toBe(201);
    await runs.store(made.running!.id, { kind: 'status', data: { status: 'pending' } });
    expect(await runs.get(made.running!.id)).toMatchObject({
      status: 'pending',
      worker_id: null,
      worker_name: 'list-worker',
    });
    await eventually(async () => expect(await item(made.running!).getAttribute('data-status')).toBe('pending'));
    await expectText(item(made.running!).getByTestId('run-worker'), 'on list-worker');
  });

  it('filters by author, worker and creation date, keeps them in the URL, and opens a filtered link as it was', async () => {
    const base = `${server.url}/projects/${runs.projectId}`;
    const all = ['cancelled', 'failed', 'completed', 'waiting', 'running', 'pending'].map((k) => made[k]!.id);
    const author = page.getByRole('combobox', { name: 'Author' });
    await eventually(async () =>
      expect(
        await author.locator('option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
      ).toContain('olivia'),
    );
    await author.selectOption('olivia');
    await expectListed(page, all);
    expect(new URL(page.url()).searchParams.get('author')).toBe('olivia');

    // The worker filter lists the runs the server says the worker last took, held or finished (decision 0078).
    const workers = await expectOk<{ id: string; name: string }[]>(
      await server.request('/svc/api/workers', { as: await server.login('olivia') }),
    );
    const listWorker = workers.find((w) => w.name === 'list-worker')!;
    const byWorker = await expectOk<{ items: { id: string }[] }>(
      await server.request(`/svc/api/projects/${runs.projectId}/workflows?worker=${listWorker.id}`, {
        as: await server.login('olivia'),
      }),
    );
    expect(byWorker.items.map((w) => w.id)).toEqual(expect.arrayContaining([made.running!.id, made.waiting!.id]));
    const worker = page.getByRole('combobox', { name: 'Ran on' });
    await worker.selectOption({ label: 'list-worker' });
    await expectListed(
      page,
      byWorker.items.map((w) => w.id),
    );
    expect(new URL(page.url()).searchParams.get('worker')).toBe(listWorker.id);
    await auditPage(page, 'run-list-filtered');

    // Keyboard only: the Created from date is reached with Tab from the worker filter and typed in.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await worker.focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('date');
    await page.getByLabel('Created from', { exact: true }).fill(tomorrow);
    await page.getByText('No workflow matches.').waitFor();
    expect(new URL(page.url()).searchParams.get('since')).toBe(tomorrow);

    // The filtered view is a link: opened afresh, it shows the same filters and list.
    const link = page.url();
    await page.goto(link);
    await page.getByText('No workflow matches.').waitFor();
    expect(await page.getByLabel('Created from', { exact: true }).inputValue()).toBe(tomorrow);
    expect(await worker.inputValue()).toBe(listWorker.id);
    await page.getByRole('button', { name: 'Clear the filters' }).click();
    await expectListed(page, all);
    expect(new URL(page.url()).search).toBe('');
    await page.goto(base);
  });

  it('shows each template’s description in the picker and the chosen one in full', async () => {
    const templates = page.getByRole('combobox', { name: 'Template' });
    await eventually(async () => expect(await templates.locator('option').count()).toBe(3));
    expect(await templates.locator('option').allInnerTexts()).toEqual([
      'No template (the agent may pick one)',
      'main — Blank starter',
      'react — Vite + React single-page app with a test set-up and a linte…',
    ]);
    const help = page.locator(`#${await templates.getAttribute('aria-describedby')}`);
    await templates.selectOption('react');
    await expectText(help, 'Vite + React single-page app with a test set-up and a linter, ready to deploy');
    await templates.selectOption('');
    await expectText(help, /empty workspace/);
  });

  it('starts one run on a double click, sends an Idempotency-Key, and opens the run’s page', async () => {
    const keys: (string | undefined)[] = [];
    const onRequest = (request: Request) => {
      if (request.method() === 'POST' && request.url().endsWith('/workflows'))
        keys.push(request.headers()['idempotency-key']);
    };
    page.on('request', onRequest);
    await page.getByRole('combobox', { name: 'Template' }).selectOption({ index: 0 });
    await page.getByRole('textbox', { name: 'Requirement' }).fill('Double-clicked dashboard');
    await page.getByRole('button', { name: 'Start workflow' }).dblclick();
    await page.waitForURL(/\/workflows\/[^/]+$/);
    page.off('request', onRequest);
    const started = await runs.search('Double-clicked dashboard');
    expect(started).toHaveLength(1);
    expect(page.url()).toContain(`/workflows/${started[0]!.id}`);
    expect(keys.length).toBeGreaterThanOrEqual(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(1);
  });

  it('sends the same key again after a lost answer, so the retry opens the run the first request made', async () => {
    await page.goto(`${server.url}/projects/${runs.projectId}`);
    const keys: string[] = [];
    let lost = false;
    // The server gets and answers the first request; the page never sees that answer.
    await page.route('**/svc/api/projects/*/workflows', async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      keys.push(route.request().headers()['idempotency-key'] ?? '');
      if (lost) return route.fallback();
      lost = true;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.getByRole('textbox', { name: 'Requirement' }).fill('A retried weather app');
    await page.getByRole('button', { name: 'Start workflow' }).click();
    await page.getByRole('alert').filter({ hasText: 'cannot be reached' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/projects/${runs.projectId}`);
    await page.getByRole('button', { name: 'Start workflow' }).click();
    await page.waitForURL(/\/workflows\/[^/]+$/);
    await page.unroute('**/svc/api/projects/*/workflows');
    const started = await runs.search('A retried weather app');
    expect(started).toHaveLength(1);
    expect(page.url()).toContain(`/workflows/${started[0]!.id}`);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('re-runs a run with an edited requirement: the form is prefilled and the new run names the old one', async () => {
    await page.goto(`${server.url}/projects/${runs.projectId}`);
    await item(made.completed!)
      .getByRole('link', { name: `Re-run #${made.completed!.number}` })
      .click();
    await page.getByRole('heading', { level: 2, name: `Re-run #${made.completed!.number}` }).waitFor();
    const requirement = page.getByRole('textbox', { name: 'Requirement' });
    await eventually(async () => expect(await requirement.inputValue()).toBe(made.completed!.requirement));
    expect(await requirement.evaluate((el) => el === document.activeElement)).toBe(true);
    await auditPage(page, 'project-page-rerun');
    await requirement.fill('A completed invoice mailer\nnow with reminders');
    await page.getByRole('button', { name: 'Start re-run' }).click();
    await page.waitForURL(/\/workflows\/[^/]+$/);
    const rerunId = decodeURIComponent(page.url().split('/workflows/')[1]!);
    const rerun = await runs.get(rerunId);
    expect(rerun.rerun_of).toBe(made.completed!.id);
    expect(rerun.requirement).toBe('A completed invoice mailer\nnow with reminders');
  });

  it('says so when the run to re-run is not in this project, and starts from scratch', async () => {
    await page.goto(`${server.url}/projects/${runs.projectId}?rerun=no-such-workflow`);
    await expectText(page.getByRole('alert'), 'The workflow to re-run was not found in this project.');
    await page.getByRole('heading', { level: 2, name: 'New workflow' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Requirement' }).inputValue()).toBe('');
  });
});
