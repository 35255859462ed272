import type { Page } from 'playwright-core';
import { eventually } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { expectText, signIn, signOut } from '../support/pages';
import { expectJson, startWebServer, startWorker, type TestServer, type TestWorker } from '../support/server';

jest.setTimeout(90_000);

/** The focused element's accessible-ish description: tag, text or name, for readable failures. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el) return '';
    const name = el.getAttribute('aria-label') ?? (el as HTMLInputElement).value ?? '';
    return `${el.tagName.toLowerCase()}:${(el.innerText || name).trim()}`;
  });

describeInChromium('the admin pages (API tokens, workers) in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let worker: TestWorker;
  /** the token minted through the page */
  let minted = '';

  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchChromium();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await browser.context.newPage();
  });

  afterAll(async () => {
    worker?.close();
    await browser?.close();
    await server?.close();
  });

  it('mints a token with the keyboard only, shows it once with a copy button, and it works', async () => {
    await signIn(page, server.url, 'kim');
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { level: 1, name: 'API tokens' }).waitFor();
    await expectText(page.locator('.admin-page'), /No tokens yet\./);
    await auditPage(page, 'tokens-empty');

    await page.getByRole('textbox', { name: 'Name' }).focus();
    await page.keyboard.type('CI of shop');
    await page.keyboard.press('Tab'); // the project
    expect(await focused(page)).toMatch(/^select:/);
    await page.keyboard.press('Tab'); // the lifetime
    await page.keyboard.press('Tab'); // "Create token"
    expect(await focused(page)).toBe('button:Create token');
    await page.keyboard.press('Enter');

    const notice = page.getByRole('region', { name: 'Token “CI of shop” created' });
    await notice.waitFor();
    expect(await focused(page)).toBe('h2:Token “CI of shop” created');
    const token = await notice.getByRole('textbox', { name: 'The new token' }).inputValue();
    minted = token;
    expect(token.split('.')).toHaveLength(3);
    const me = await expectJson<{ login: string }>(await server.request('/svc/api/me', { as: token }), 200);
    expect(me.login).toBe('kim');

    await page.keyboard.press('Tab'); // the token field
    await page.keyboard.press('Tab'); // "Copy token"
    expect(await focused(page)).toBe('button:Copy token');
    await page.keyboard.press('Enter');
    await expectText(notice.getByRole('status'), 'Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    await auditPage(page, 'tokens-minted');

    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('button:Done');
    await page.keyboard.press('Enter');
    await notice.waitFor({ state: 'detached' });
    expect(await focused(page)).toBe('h2:Your tokens');
    const item = page.locator('.token', { hasText: 'CI of shop' });
    await expectText(item.locator('.token-state'), 'active');
    expect(await item.innerText()).toMatch(/Project\s+every project of its owner/);
  });

  it('revokes a token with the keyboard only: Escape keeps it, the confirmation revokes it', async () => {
    expect((await server.request('/svc/api/me', { as: minted })).status).toBe(200);
    await page.keyboard.press('Tab'); // from the list heading to the token's "Revoke"
    expect(await focused(page)).toBe('button:Revoke');
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('button:Yes, revoke');
    await auditPage(page, 'tokens-revoke-confirm');
    await page.keyboard.press('Escape');
    expect(await focused(page)).toBe('button:Revoke');
    expect((await server.request('/svc/api/me', { as: minted })).status).toBe(200);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter'); // "Yes, revoke"
    const item = page.locator('.token', { hasText: 'CI of shop' });
    await expectText(item.locator('.token-state'), 'revoked');
    await eventually(async () => expect(await focused(page)).toBe('h3:CI of shop'));
    expect((await server.request('/svc/api/me', { as: minted })).status).toBe(401);
    expect(await item.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    await auditPage(page, 'tokens-revoked');
  });

  it('lists workers with capacity, labels, version, last seen and their current runs linked to the run page', async () => {
    ({ worker } = await startWorker(server, 'build-box', 3));
    const kim = await server.login('kim');
    const project = await expectJson<{ id: string }>(
      await server.request('/svc/api/projects', { method: 'POST', as: kim, json: { name: 'Shop' } }),
      201,
    );
    const workflow = await expectJson<{ id: string }>(
      await server.request(`/svc/api/projects/${project.id}/workflows`, {
        method: 'POST',
        as: kim,
        json: { requirement: 'Build the shop' },
      }),
      201,
    );
    await worker.dispatch(workflow.id, 'start');

    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Workers' }).click();
    await page.getByRole('heading', { level: 1, name: 'Workers' }).waitFor();
    const card = page.locator('.worker', { hasText: 'build-box' });
    await expectText(card.locator('.token-state'), 'online');
    const run = card.getByRole('link', { name: /Build the shop/ });
    await run.waitFor();
    const text = await card.innerText();
    expect(text).toMatch(/Capacity\s+1 of 3 busy/);
    expect(text).toMatch(/Last seen\s+.*\d{1,2}:\d{2}:\d{2}/); // with seconds
    expect(text).toMatch(/\((just now|\d+ s ago)\)/);
    await auditPage(page, 'workers');

    expect(await run.getAttribute('href')).toBe(`/projects/${project.id}/workflows/${workflow.id}`);
  });

  it('shows administrators everyone’s tokens, with their owner', async () => {
    await signOut(page);
    await signIn(page, server.url, 'root'); // ADMIN_USERS=root in the test server
    await page.getByRole('link', { name: 'Admin', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Workers' }).waitFor();
    await page.getByRole('link', { name: 'API tokens' }).click();
    // root's own: the worker token the test worker registered with (minted through the API)
    await expectText(page.locator('.token .token-state'), 'active');
    expect(await page.locator('.token').count()).toBe(1);
    await page.getByRole('checkbox', { name: 'Show everyone’s' }).check();
    const item = page.locator('.token', { hasText: 'CI of shop' });
    await expectText(item.locator('.token-state'), 'revoked');
    expect(await item.innerText()).toMatch(/Owner\s+kim/);
    await auditPage(page, 'tokens-admin');
  });
});
