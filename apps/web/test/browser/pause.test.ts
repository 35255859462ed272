import type { Page } from 'playwright-core';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { expectText, signIn } from '../support/pages';
import { startWebServer, startWorker, type TestServer, type TestWorker } from '../support/server';
import { createProject, expectStatus, openRun, planUpdate, runUrl, shownSteps, startRun } from './run-support';

jest.setTimeout(90_000);

// Issue 23, pause and resume on the run page (decision 0039); a scripted worker speaks the real protocol.
describeInChromium('run page: Pause and Resume (Chromium, real server)', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let worker: TestWorker;
  let alice = '';

  beforeAll(async () => {
    server = await startWebServer();
    ({ worker } = await startWorker(server, 'pause-worker', 10));
    browser = await launchChromium();
    page = await browser.context.newPage();
    await signIn(page, server.url, 'alice');
    alice = await server.login('alice');
  });

  afterAll(async () => {
    await browser?.close();
    worker?.close();
    await server?.close();
  });

  /** The next dispatch of `action` the worker gets for `workflowId`. */
  const dispatched = (workflowId: string, action: string) =>
    worker.inbox.next((m) => m.type === 'dispatch' && m.workflow_id === workflowId && m.action === action) as Promise<{
      message?: string;
    }>;

  it('pauses a running run (interrupting its command), shows where it stopped, and resumes it there', async () => {
    const projectId = await createProject(server, alice, 'Pausing');
    const run = await startRun(server, worker, alice, projectId, 'Build a shop');
    await run.store(planUpdate('executing', 1, ['done', 'running', 'pending']));
    await openRun(page, runUrl(server, projectId, run.id));
    await expectText(page.getByTestId('run-progress'), 'Running step 2 of 3: Build the cart');

    await page.getByRole('checkbox', { name: 'interrupt the current command' }).check();
    const pauseSent = dispatched(run.id, 'pause');
    await page.getByRole('button', { name: 'Pause' }).click();
    expect((await pauseSent).message).toBe('interrupt');
    // Asked: the worker has not reached its tool boundary, so the run still runs.
    await expectText(page.getByTestId('pause-controls').getByRole('status'), 'Pausing at the next tool boundary…');
    await expectStatus(page, 'Running');

    await run.status('paused');
    await expectStatus(page, 'Paused');
    await expectText(page.getByTestId('run-progress'), 'Paused at step 2 of 3: Build the cart');
    expect(await shownSteps(page)).toEqual(['done', 'paused', 'pending']);
    await expectText(page.locator('.timeline .plan-step[aria-current="step"] .plan-step-title'), 'Build the cart');
    await expectText(page.getByTestId('pause-controls'), 'Resume');
    await auditPage(page, 'run-paused');

    const resumeSent = dispatched(run.id, 'resume');
    await page.getByRole('button', { name: 'Resume' }).click();
    await resumeSent;
    await expectStatus(page, 'Running');
    await expectText(page.getByTestId('run-progress'), 'Running step 2 of 3: Build the cart');
    expect(await shownSteps(page)).toEqual(['done', 'running', 'pending']);
    // It can be paused again, and goes on where it stopped.
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    await run.store(planUpdate('executing', 2, ['done', 'done', 'running']));
    await expectText(page.getByTestId('run-progress'), 'Running step 3 of 3: Add payments');
  });
});
