import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, signIn, unfoldedForm } from '../support/pages';
import { startWebServer, type TestServer } from '../support/server';

jest.setTimeout(90_000);

// Issue 23: the project page's Triggers panel shows a new trigger's URL and secret once; a signed delivery
// to that URL is listed under Deliveries, and its run's page shows the payload.
describeInChromium('triggers in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    await signIn(page, server.url, 'tess');
    await createProjectInUi(page, 'Hooks');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('creates a trigger, shows its secret once, lists a signed delivery and shows the payload on the run page', async () => {
    const form = await unfoldedForm(page, 'New trigger');
    await form.getByRole('textbox', { name: 'Name' }).fill('issues');
    await form.getByRole('button', { name: 'Create trigger' }).click();
    const url = await page.getByTestId('trigger-url').innerText();
    const secret = await page.getByTestId('trigger-secret').innerText();
    expect(url).toMatch(new RegExp(`^${server.url}/svc/api/hooks/`));
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    await auditPage(page, 'project-trigger-secret');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('trigger-secret').count()).toBe(0);

    const raw = JSON.stringify({ action: 'opened', issue: { number: 9, title: 'Dark mode' } });
    const delivered = await fetch(url, {
      method: 'POST',
      body: raw,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issues',
        'x-github-delivery': 'browser-1',
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
      },
    });
    expect(delivered.status).toBe(201);

    await page.getByRole('button', { name: 'Deliveries' }).click();
    const deliveries = page.getByRole('list', { name: 'Deliveries' });
    await deliveries.getByText(/browser-1/).waitFor();
    await auditPage(page, 'project-trigger-deliveries');
    await deliveries.getByRole('link', { name: 'run' }).click();
    await page.getByRole('heading', { name: 'Fix issue #9: Dark mode' }).waitFor();
    const payload = page.locator('details.trigger-payload');
    await payload.getByText('Started by trigger').waitFor();
    await payload.locator('summary').click();
    expect(JSON.parse(await payload.locator('pre').innerText())).toEqual(JSON.parse(raw));
    await auditPage(page, 'run-trigger-payload');
  });
});
