import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Project, Workflow } from '@svc/protocol';
import { startApiProcess, type ApiProcess } from '@svc/test-kit';
import { CHROMIUM_FLAGS, CHROMIUM_PATH, describeInChromium } from '../support/chromium';
import { signIn } from '../support/pages';
import { auditPage } from '../support/audit';
import { expectJson, WEB_DIST_DIR } from '../support/server';

jest.setTimeout(120_000);

/** A name only this browser resolves (to the server): a DNS name the server does not list as its own. */
const FOREIGN_NAME = 'svc-elsewhere.test';

/**
 * Issue 14, findings 1 and 2, in Chromium against the real server started WITHOUT PUBLIC_URL: the web
 * app goes live at the address the server prints and at localhost; at an address the server refuses
 * sockets from, a banner says so and the page keeps updating by polling; a workflow's built app opens
 * at its app link with its stylesheet and script, in an opaque origin that cannot use the session.
 */
describeInChromium('origins and built apps in Chromium', () => {
  let server: ApiProcess;
  let port: number;
  let browser: Browser;

  beforeAll(async () => {
    server = await startApiProcess({ env: { WEB_DIST_DIR, PUBLIC_URL: '' } });
    port = Number(new URL(server.url).port);
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_FLAGS, `--host-resolver-rules=MAP ${FOREIGN_NAME} 127.0.0.1`],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function signedInPage(base: string, login: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const page = await context.newPage();
    await signIn(page, base, login);
    return page;
  }

  it.each(['127.0.0.1', 'localhost'])('goes live when opened at http://%s:PORT', async (host) => {
    const page = await signedInPage(`http://${host}:${port}`, 'ann');
    await page.locator('.live').filter({ hasText: 'Live' }).waitFor();
    expect(await page.getByTestId('connection-banner').count()).toBe(0);
    await page.context().close();
  });

  it('shows a refused socket in a banner with Retry now, and keeps the page updated by polling', async () => {
    // A name the server does not know: it refuses the socket, and cookie writes too (Chromium sends no
    // Sec-Fetch-Site to a plain-http name), so the session is handed over and the page only reads.
    const cookie = await server.login('bea');
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const [name, value] = cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, domain: FOREIGN_NAME, path: '/', httpOnly: true, sameSite: 'Lax' }]);
    const page = await context.newPage();
    await page.goto(`http://${FOREIGN_NAME}:${port}/`);
    await page.getByTestId('current-user').filter({ hasText: 'bea' }).waitFor();
    const banner = page.getByRole('alert').filter({ hasText: 'refused live updates' });
    await banner.waitFor();
    await page.locator('.live').filter({ hasText: 'Polling' }).waitFor();
    await auditPage(page, 'connection-refused');

    // Something changes elsewhere: the page shows it without the socket.
    const res = await server.request('/svc/api/projects', { method: 'POST', as: cookie, json: { name: 'Polled' } });
    await expectJson<Project>(res, 201);
    await page.getByRole('link', { name: 'Polled' }).waitFor();

    // Retry now tries at once (and is refused again: the banner stays).
    const attempt = page.waitForEvent('websocket');
    await page.getByRole('button', { name: 'Retry now' }).click();
    expect((await attempt).url()).toBe(`ws://${FOREIGN_NAME}:${port}/svc/ws`);
    await banner.waitFor();
    await page.context().close();
  });

  it("opens a workflow's built app at its link: stylesheet and script work, the session does not", async () => {
    const cookie = await server.login('cid');
    const project = await expectJson<Project>(
      await server.request('/svc/api/projects', { method: 'POST', as: cookie, json: { name: 'Apps' } }),
      201,
    );
    const workflow = await expectJson<Workflow>(
      await server.request(`/svc/api/projects/${project.id}/workflows`, {
        method: 'POST',
        as: cookie,
        json: { requirement: 'Build a page' },
      }),
      201,
    );
    // without PUBLIC_URL the link is on the address the server prints (decision 0072), not on localhost
    expect(server.url).toBe(`http://127.0.0.1:${port}`);
    expect(workflow.app_link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/svc/apps/[A-Za-z0-9_-]{43}/$`));
    const workspace = join(server.dataDir, 'workspaces', project.id, workflow.id);
    writeFileSync(
      join(workspace, 'index.html'),
      '<!doctype html><title>Shop</title><link rel="stylesheet" href="style.css"><h1>Shop</h1><script src="app.js"></script>',
    );
    writeFileSync(join(workspace, 'style.css'), 'h1 { color: rgb(1, 2, 3); }');
    writeFileSync(
      join(workspace, 'app.js'),
      `document.body.dataset.ran = 'yes';
       try { document.cookie; document.body.dataset.cookie = 'readable'; }
       catch { document.body.dataset.cookie = 'blocked'; }
       fetch('/svc/api/me').then(
         (res) => (document.body.dataset.me = String(res.status)),
         () => (document.body.dataset.me = 'blocked'),
       );`,
    );

    // Signed in at the app link's origin, so a session cookie exists that the app could try to use.
    const page = await signedInPage(new URL(workflow.app_link!).origin, 'cid');
    const sentCookies: Record<string, string | undefined> = {};
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      // a request still in flight when the context closes has no headers to read: nothing to record
      request.allHeaders().then(
        (headers) => (sentCookies[path] = headers.cookie),
        () => undefined,
      );
    });
    const responses: Record<string, number> = {};
    page.on('response', (response) => (responses[new URL(response.url()).pathname] = response.status()));

    await page.goto(workflow.app_link!);
    await page.locator('body[data-me]').waitFor({ state: 'attached' });
    const base = new URL(workflow.app_link!).pathname;
    expect(responses[`${base}style.css`]).toBe(200);
    expect(await page.locator('h1').evaluate((h1) => getComputedStyle(h1).color)).toBe('rgb(1, 2, 3)');
    expect(await page.locator('body').getAttribute('data-ran')).toBe('yes');
    expect(await page.locator('body').getAttribute('data-cookie')).toBe('blocked');
    expect(await page.locator('body').getAttribute('data-me')).not.toBe('200');
    // the app's own requests (opaque origin, cross-site) carry no session cookie
    expect(sentCookies[`${base}style.css`]).toBeUndefined();
    expect(sentCookies[`${base}app.js`]).toBeUndefined();
    expect(sentCookies['/svc/api/me'] ?? '').not.toContain('svc_session');
    await page.context().close();
  });
});
