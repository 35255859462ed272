import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, signIn, unfoldedForm } from '../support/pages';
import { startWebServer, type TestServer } from '../support/server';

jest.setTimeout(90_000);

// Issue 25: the project page's Repositories panel connects a repository (its forge webhook secret shown
// once) and rotates that secret; the forge hook then verifies only the new one.
describeInChromium('repositories in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    await signIn(page, server.url, 'rita');
    await createProjectInUi(page, 'Shop');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A GitHub `ping` delivery to the repository's forge hook, signed with `secret` as GitHub signs. */
  const ping = (webhookUrl: string, secret: string, delivery: string) => {
    const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    return fetch(new URL(webhookUrl, server.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'ping',
        'x-github-delivery': delivery,
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      },
      body,
    });
  };

  it('connects a repository, shows its webhook secret once, and rotates it', async () => {
    const form = await unfoldedForm(page, 'Connect a repository');
    await form.getByRole('textbox', { name: 'Name' }).fill('shop');
    await form.getByRole('textbox', { name: 'Clone URL', exact: true }).fill('https://github.com/acme/shop.git');
    await form.getByRole('textbox', { name: 'Token or private key' }).fill('ghp_browser-test-token');
    await form.getByRole('button', { name: 'Connect repository' }).click();
    const connected = page.getByRole('status').filter({ hasText: 'Connected shop' });
    const first = await connected.locator('code').innerText();
    expect(first.length).toBeGreaterThanOrEqual(32);

    const item = page.getByRole('listitem', { name: 'Repository shop' });
    await item.getByText('github').first().waitFor();
    const webhookUrl = await item.locator('p.hint code').innerText();
    // The credential is never shown back.
    expect(await page.content()).not.toContain('ghp_browser-test-token');
    await auditPage(page, 'project-repository-connected');
    expect((await ping(webhookUrl, first, 'ping-1')).status).toBe(200);

    await item.getByRole('button', { name: 'Rotate webhook secret of shop' }).click();
    await item.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = item.getByRole('status').filter({ hasText: 'New webhook secret of shop' });
    const second = await rotated.locator('code').innerText();
    expect(second).not.toBe(first);
    expect((await ping(webhookUrl, first, 'ping-2')).status).toBe(401);
    expect((await ping(webhookUrl, second, 'ping-3')).status).toBe(200);
  });
});
