import type { Page } from 'playwright-core';
import { WORKER_PROTOCOL_VERSION } from '@svc/protocol';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, expectText, signIn, signOut } from '../support/pages';
import { startWebServer, startWorker, TestWorker, workerToken, type TestServer } from '../support/server';

jest.setTimeout(90_000);

/** Label routing in the web app (issue 23): the labels field, the waiting notice, the admin queue. */
describeInChromium('worker label routing in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const workers: TestWorker[] = [];

  beforeAll(async () => {
    server = await startWebServer();
    workers.push((await startWorker(server, 'plain-worker')).worker);
    browser = await launchChromium();
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    for (const worker of workers) worker.close();
    await browser?.close();
    await server?.close();
  });

  it('starts a run that requires gpu, says why it waits, lists it in the queue and clears the notice when a gpu worker comes', async () => {
    await signIn(page, server.url, 'alice');
    await createProjectInUi(page, 'Training');
    await page.getByRole('textbox', { name: 'Requirement' }).fill('Train the model');
    await page.getByRole('textbox', { name: 'Worker labels' }).fill('gpu, linux');
    await page.getByRole('button', { name: 'Start workflow' }).click();
    await page.waitForURL('**/workflows/**');
    const runUrl = page.url();
    const note = page.getByRole('region', { name: 'Worker labels' });
    await expectText(note, /Runs on a worker with the labels\s*gpu\s*linux/);
    // Arrives live (workflow_routing) or with the record: either way without a reload.
    await expectText(note.getByRole('status'), /^Waiting: no online worker has the labels gpu, linux\./);
    await auditPage(page, 'run-waiting-for-labels');

    // An administrator sees the run in the queue by label set.
    await signOut(page);
    await signIn(page, server.url, 'root');
    await page.goto(`${server.url}/admin/workers`);
    const queue = page.getByRole('region', { name: 'Queue' });
    const row = queue.getByRole('row', { name: /gpu, linux/ });
    await expectText(row, /gpu, linux\s+1\s+\d+ s\s+0/);
    await auditPage(page, 'workers-queue');

    // A worker with the labels registers: the notice goes away on the open run page.
    await page.goto(runUrl);
    await note.getByRole('status').waitFor();
    const gpu = await TestWorker.connect(server, await workerToken(server));
    workers.push(gpu);
    gpu.send({
      type: 'register',
      protocol_version: WORKER_PROTOCOL_VERSION,
      name: 'gpu-worker',
      labels: ['gpu', 'linux'],
      capacity: 1,
      version: '1.0.0',
      hostname: 'test-host',
    });
    gpu.keepAlive();
    await gpu.inbox.next((m) => m.type === 'dispatch' && m.action === 'start');
    await note.getByRole('status').waitFor({ state: 'detached' });
    await expectText(note, /Runs on a worker with the labels\s*gpu\s*linux/);
  });
});
