import { writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { Workflow } from '@svc/protocol';
import { eventually } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, expectText, signIn } from '../support/pages';
import { expectJson, startWebServer, startWorker, type TestServer, type TestWorker } from '../support/server';
import {
  createProject,
  expectStatus,
  fact,
  focused,
  openRun,
  planUpdate,
  runUrl,
  ScriptedRun,
  shownSteps,
  startRun,
  WITH_SECONDS,
} from './run-support';

jest.setTimeout(90_000);

/** Where the measured time from "Start" to the first plan step on screen is written for the release notes. */
const START_TO_PLAN_FILE = '/tmp/svc-start-to-first-plan-step.txt';

describeInChromium('run page: header, result, timeline, stopped runs (Chromium, real server)', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let worker: TestWorker;
  let workerBearer = '';
  let alice = '';
  let first: ScriptedRun;

  beforeAll(async () => {
    server = await startWebServer();
    ({ worker, token: workerBearer } = await startWorker(server, 'run-worker', 10));
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1366, height: 768 });
    await signIn(page, server.url, 'alice');
    alice = await server.login('alice');
    await createProjectInUi(page, 'Runs');
  });

  afterAll(async () => {
    await browser?.close();
    worker?.close();
    await server?.close();
  });

  it('shows the first plan step soon after "Start" is pressed, and measures how soon', async () => {
    await page.getByRole('textbox', { name: 'Requirement' }).fill('Build a shop\nwith a cart');
    // The scripted worker answers the dispatch at once, as a worker whose LLM planned instantly would.
    const taken = worker.inbox
      .next((m) => m.type === 'dispatch' && m.action === 'start')
      .then(async (dispatch: { workflow_id: string }) => {
        first = new ScriptedRun(dispatch.workflow_id, worker);
        await first.status('running');
        await first.store(planUpdate('executing', 0, ['running', 'pending', 'pending']));
      });
    const startedAt = Date.now();
    await page.getByRole('button', { name: 'Start workflow' }).click();
    // starting opens the new run's page
    await page.waitForURL('**/workflows/**');
    const opened = Date.now() - startedAt;
    await page.locator('.timeline .plan-step-title', { hasText: 'Scaffold the shop' }).waitFor();
    const ms = Date.now() - startedAt;
    await taken;
    expect(page.url()).toContain(`/workflows/${first.id}`);
    console.log(`Start -> run page open: ${opened} ms; Start -> first plan step on screen: ${ms} ms`);
    writeFileSync(START_TO_PLAN_FILE, `${ms}\n`);
    expect(await shownSteps(page)).toEqual(['running', 'pending', 'pending']);
    await expectText(page.getByTestId('run-progress'), 'Running step 1 of 3: Scaffold the shop');
  });

  it('heads the run with its number, status, times to the second, a ticking duration and the worker', async () => {
    await expectStatus(page, 'Running');
    expect(await fact(page, 'finished').innerText()).toBe('—');
    await expectText(page.locator('.run-number'), '#1');
    await expectText(fact(page, 'worker'), 'run-worker');
    await expectText(fact(page, 'started'), WITH_SECONDS);
    // the duration ticks while the run runs
    const before = await fact(page, 'duration').innerText();
    expect(before).toMatch(/^\d+ s$/);
    await eventually(async () => expect(await fact(page, 'duration').innerText()).not.toBe(before));
    expect(await page.title()).toBe('#1 Build a shop · svc');
  });

  it('sums the tokens of the LLM calls and estimates the cost from the prices setting', async () => {
    const call = (model: string, prompt: number, completion: number) =>
      first.store({
        kind: 'llm_call',
        data: {
          phase: 'executing',
          model,
          prompt_tokens: prompt,
          completion_tokens: completion,
          latency_ms: 300,
          step_index: 0,
        },
      });
    await call('big-model', 1_000_000, 100_000);
    await call('small-model', 200_000, 0);
    await expectText(fact(page, 'tokens'), '1,200,000 prompt · 100,000 completion');
    await expectText(fact(page, 'cost'), /^no prices set/);
    expect(await fact(page, 'cost').getByRole('link').getAttribute('href')).toBe('/settings');

    const root = await server.login('root');
    const prices = { 'big-model': { prompt_per_million: 3, completion_per_million: 15 } };
    const put = await server.request('/svc/api/settings/llm_prices', {
      method: 'PUT',
      as: root,
      json: { value: JSON.stringify(prices) },
    });
    expect(put.status).toBe(200);
    await page.reload();
    // 1M prompt tokens at $3 and 100k completion tokens at $15 per million; small-model has no price
    await expectText(fact(page, 'cost'), '≈ $4.50 (no price for small-model)');
    await auditPage(page, 'run-running');
  });

  it('times each step, and filters the log to a step when it is pressed (the filter is in the URL)', async () => {
    await first.log(0, 'npm create vite@latest shop', 'Scaffolded');
    await first.store(planUpdate('executing', 1, ['done', 'running', 'pending']));
    await first.log(1, 'npm test -- cart', 'Tests: 4 passed');
    await first.log(1, 'npm run lint', 'clean');
    await eventually(async () => expect(await shownSteps(page)).toEqual(['done', 'running', 'pending']));
    const step = (i: number) => page.locator(`.timeline .plan-step[data-step-index="${i}"]`);
    // step 2 started while the page watched; step 1 before it was opened (its times come from the server)
    await expectText(step(1).locator('.step-duration'), /^\d+ s$/);
    await expectText(step(0).locator('.step-duration'), /^\d+ s$/);
    expect(await step(2).locator('.step-duration').innerText()).toBe('');
    expect(await step(1).getAttribute('aria-current')).toBe('step');
    await eventually(async () => expect(await page.locator('.log-entry').count()).toBe(3));

    // by keyboard: focus the second step and press Enter
    await step(1).getByRole('button').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.searchParams.get('step') === '2');
    await eventually(async () => expect(await page.locator('.log-entry').count()).toBe(2));
    expect(await page.locator('.log-entry', { hasText: 'npm create vite' }).count()).toBe(0);
    expect(await step(1).getByRole('button').getAttribute('aria-pressed')).toBe('true');
    expect(await focused(page)).toMatch(/^button/);
    // a reload keeps the filter (the URL says it), times come back from the server's plan
    await page.reload();
    await eventually(async () => expect(await page.locator('.log-entry').count()).toBe(2));
    await expectText(step(0).locator('.step-duration'), /^\d+ s$/);
    await step(1).getByRole('button').click();
    await page.waitForURL((url) => !url.searchParams.has('step'));
    await eventually(async () => expect(await page.locator('.log-entry').count()).toBe(3));
  });

  it('puts the result first once the run completed: the app link and the rendered report', async () => {
    const report = '# Shop report\n\nThe shop is **ready**.\n\n| page | state |\n|---|---|\n| cart | done |\n';
    const put = await server.request(`/svc/api/workflows/${first.id}/files/report.md`, {
      method: 'PUT',
      as: workerBearer,
      body: report,
    });
    expect(put.status).toBe(201);
    await first.store(planUpdate('completed', null, ['done', 'done', 'done']));
    const appUrl =
      'http://apps.local/a-very-long-path/that/keeps/going/and/going/so/it/must/wrap/on/a/phone/index.html';
    await first.store({ kind: 'report', data: { path: 'report.md', app_url: appUrl } });
    await first.status('completed');
    await expectStatus(page, 'Completed');
    const stored = await expectJson<Workflow>(
      await server.request(`/svc/api/workflows/${first.id}`, { as: alice }),
      200,
    );
    // the capability link (no session needed) wins over the worker's reported address
    const link = stored.app_link ?? '';
    expect(link).toMatch(/\/svc\/apps\/[\w-]+\/$/);
    const result = page.getByRole('region', { name: 'Result' });
    await result.waitFor();
    expect(await result.getByRole('link', { name: 'Open the app' }).getAttribute('href')).toBe(link);
    await expectText(result.getByTestId('app-url'), link);
    await expectText(result.locator('.markdown h1'), 'Shop report');
    expect(await result.locator('.markdown strong').innerText()).toBe('ready');
    expect(await result.locator('.markdown td').allInnerTexts()).toEqual(['cart', 'done']);
    // the report is not in a fixed-height frame
    expect(await page.locator('iframe').count()).toBe(0);
    // the result comes before the steps and the log
    const top = async (selector: string) => (await page.locator(selector).first().boundingBox())!.y;
    expect(await top('.run-result')).toBeLessThan(await top('.run-timeline'));
    await expectText(fact(page, 'finished'), WITH_SECONDS);
    expect(await shownSteps(page)).toEqual(['done', 'done', 'done']);
    await expectText(page.getByTestId('run-progress'), 'Completed all 3 steps');
    await auditPage(page, 'run-completed');
    await page.setViewportSize({ width: 390, height: 844 });
    const url = (await result.getByTestId('app-url').boundingBox())!;
    expect(url.x + url.width).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1366, height: 768 });
  });

  it('shows the live log above the fold at 1366x768 while a run runs', async () => {
    const project = await createProject(server, alice, 'Write the docs');
    const run = await startRun(server, worker, alice, project, 'Write the docs');
    await run.store(planUpdate('executing', 0, ['running', 'pending', 'pending']));
    await run.log(0, 'ls -la', 'total 0');
    await openRun(page, runUrl(server, project, run.id));
    const entry = page.locator('.log-entry').first();
    await entry.waitFor();
    const box = (await entry.boundingBox())!;
    expect(box.y).toBeLessThan(768);
    await run.status('completed');
  });

  it('after a cancel no step says Running, and focus stays on the page (keyboard)', async () => {
    const project = await createProject(server, alice, 'Cancel me');
    const run = await startRun(server, worker, alice, project, 'Cancel me');
    await run.store(planUpdate('executing', 1, ['done', 'running', 'pending']));
    await openRun(page, runUrl(server, project, run.id));
    await eventually(async () => expect(await shownSteps(page)).toEqual(['done', 'running', 'pending']));
    await page.getByRole('button', { name: 'Cancel workflow' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Yes, cancel workflow' }).focus();
    await page.keyboard.press('Enter');
    expect((await worker.dispatch(run.id, 'cancel')).workflow_id).toBe(run.id);
    await expectStatus(page, 'Cancelled');
    await eventually(async () => expect(await shownSteps(page)).toEqual(['done', 'cancelled', 'pending']));
    await expectText(page.getByTestId('run-progress'), 'Cancelled at step 2 of 3: Build the cart');
    await eventually(async () => expect(await focused(page)).not.toBe('body'));
    // the worker confirms the stop later; the page still says nothing runs, after a reload too
    await run.status('cancelled');
    await page.reload();
    await eventually(async () => expect(await shownSteps(page)).toEqual(['done', 'cancelled', 'pending']));
    expect(await page.locator('.timeline [data-step-status="running"]').count()).toBe(0);
    await expectText(page.getByTestId('cancelled-notice'), /^This run was cancelled by alice/);
    await auditPage(page, 'run-cancelled');
  });

  it('explains a failure in plain words, keeps the raw error as detail, and marks the failed step', async () => {
    const project = await createProject(server, alice, 'Fail me');
    const run = await startRun(server, worker, alice, project, 'Fail me');
    await run.store(planUpdate('executing', 0, ['running', 'pending', 'pending']));
    await openRun(page, runUrl(server, project, run.id));
    const raw = `PUT /svc/api/workflows/${run.id}/files/docs/notes.md failed: fetch failed`;
    await run.status('failed', { error: raw });
    const banner = page.getByTestId('failure-banner');
    await expectText(
      banner.locator('.run-stopped-head'),
      'This run failed at step 1 (Scaffold the shop). The worker lost its connection to the server while saving its work.',
    );
    await banner.getByText('Error details').click();
    await expectText(banner.locator('pre'), raw);
    expect(await shownSteps(page)).toEqual(['failed', 'pending', 'pending']);
    await page.reload();
    await eventually(async () => expect(await shownSteps(page)).toEqual(['failed', 'pending', 'pending']));
    await auditPage(page, 'run-failed');
  });
});
