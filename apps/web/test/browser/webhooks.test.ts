import type { Page } from 'playwright-core';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, signIn, unfoldedForm } from '../support/pages';
import { startWebServer, type TestServer } from '../support/server';

jest.setTimeout(90_000);

// Issue 25: the project page's Webhooks panel makes a webhook (secret shown once), lists its deliveries to
// a real receiver that checks the signature, and redelivers one.
describeInChromium('outbound webhooks in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let receiver: WebhookReceiver;
  let projectId: string;

  beforeAll(async () => {
    server = await startWebServer({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_BASE_MS: '20',
      OUTBOX_POLL_MS: '100',
    });
    receiver = await startWebhookReceiver();
    browser = await launchChromium();
    page = await browser.context.newPage();
    await signIn(page, server.url, 'wendy');
    projectId = await createProjectInUi(page, 'Outbound');
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await server?.close();
  });

  it('creates a webhook, shows its secret once, lists a signed delivery and redelivers it', async () => {
    const form = await unfoldedForm(page, 'New webhook');
    await form.getByRole('textbox', { name: 'URL' }).fill(receiver.url);
    await form.getByRole('checkbox', { name: 'run.created' }).check();
    await form.getByRole('button', { name: 'Create webhook' }).click();
    const secret = await page.getByTestId('webhook-secret').innerText();
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    receiver.secret = secret;
    await auditPage(page, 'project-webhook-secret');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);

    const runId = await page.evaluate(async (id) => {
      const res = await fetch(`/svc/api/projects/${id}/workflows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ requirement: 'Tell the webhook' }),
      });
      return ((await res.json()) as { id: string }).id;
    }, projectId);
    const first = await receiver.next((d) => d.json.workflow_id === runId && d.answered === 200);
    expect(first.signatureValid).toBe(true);

    const webhooks = page.getByRole('list', { name: 'Webhooks' });
    await webhooks.getByRole('button', { name: 'Deliveries' }).click();
    const delivery = page.getByTestId('webhook-delivery').first();
    await delivery.getByText('delivered').waitFor();
    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await receiver.next((d) => d.deliveryId === first.deliveryId && d !== first && d.answered === 200);
    // Once the attempt is recorded, the refreshed log shows it as a redelivery.
    await eventually(() =>
      page.evaluate(async (id) => {
        const res = await fetch(`/svc/api/webhooks/${id}/deliveries`);
        const list = (await res.json()) as { attempt_log: { redelivery: boolean }[] }[];
        return list[0]?.attempt_log[0]?.redelivery === true;
      }, first.webhookId),
    );
    await page.getByRole('button', { name: 'Refresh' }).click();
    await delivery.locator('summary').click();
    await delivery.getByText('(redelivery)').waitFor();
    await auditPage(page, 'project-webhook-deliveries');
    expect(receiver.received.filter((d) => d.deliveryId === first.deliveryId)).toHaveLength(2);
  });
});
