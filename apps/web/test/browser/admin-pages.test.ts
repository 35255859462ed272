import type { Page } from 'playwright-core';
import { describeInChromium, launchChromium } from '../support/chromium';
import { eventually } from '@svc/test-kit';
import { expectText, signIn } from '../support/pages';
import { expectJson, startWebServer, type TestServer } from '../support/server';

jest.setTimeout(60_000);

const PORTS =
  '## Web\nThe web app listens on port 3000.\n\n## API\nThe API server listens on port 8080 behind the proxy.';

describeInChromium('knowledge base and settings in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    await signIn(page, server.url, 'root'); // ADMIN_USERS=root in the test server
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lets an administrator create an article and find its section by search', async () => {
    await page.getByRole('link', { name: 'Knowledge base' }).click();
    await page.getByRole('button', { name: 'New article' }).click();
    await page.getByRole('textbox', { name: 'Title' }).fill('Ports');
    await page.getByRole('textbox', { name: 'Content (markdown)' }).fill(PORTS);
    await page.getByRole('button', { name: 'Create article' }).click();
    await page.getByRole('heading', { level: 2, name: 'Ports' }).waitFor();
    expect(await page.locator('.article-content').innerText()).toBe(PORTS);

    await page.getByRole('searchbox').fill('API server port proxy');
    await page.getByRole('button', { name: 'Search' }).click();
    const first = page.locator('.search-results li').first();
    await expectText(first.locator('button'), 'Ports');
    expect(await first.locator('.snippet').innerText()).toContain('8080');
  });

  it('edits and deletes the article', async () => {
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('textbox', { name: 'Title' }).fill('Ports and hosts');
    await page.getByRole('button', { name: 'Save article' }).click();
    await page.getByRole('heading', { level: 2, name: 'Ports and hosts' }).waitFor();
    await expectText(page.locator('.article-list'), 'Ports and hosts');

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expectText(page.locator('.kb-page'), /No articles yet\./);
    expect(
      await expectJson<unknown[]>(
        await server.request('/svc/api/kb/articles', { as: await server.login('root') }),
        200,
      ),
    ).toEqual([]);
  });

  it('lets an administrator add and change settings, refusing a bad key before sending it', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('textbox', { name: 'Key' }).fill('bad/key');
    await page.getByRole('button', { name: 'Add setting' }).click();
    await expectText(page.getByRole('alert'), /^Key: letters, digits/);

    await page.getByRole('textbox', { name: 'Key' }).fill('llm.model');
    await page.getByRole('textbox', { name: 'Value', exact: true }).fill('gpt-small');
    await page.getByRole('button', { name: 'Add setting' }).click();
    const value = page.getByRole('textbox', { name: 'Value of llm.model' });
    await value.waitFor();
    await value.fill('gpt-large');
    await page
      .getByRole('row', { name: /llm\.model/ })
      .getByRole('button', { name: 'Save' })
      .click();
    const root = await server.login('root');
    await eventually(async () => {
      const settings = await expectJson<Record<string, string>>(
        await server.request('/svc/api/settings', { as: root }),
        200,
      );
      expect(settings['llm.model']).toBe('gpt-large');
    });
  });

  it('shows settings read-only and no article editing to someone who is not an administrator', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, server.url, 'nina');
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('cell', { name: 'gpt-large' }).waitFor();
    expect(await page.getByRole('textbox').count()).toBe(1); // only the sidebar's new-project field
    await page.getByRole('link', { name: 'Knowledge base' }).click();
    await page.getByRole('heading', { level: 2, name: 'Articles' }).waitFor();
    expect(await page.getByRole('button', { name: 'New article' }).count()).toBe(0);
  });
});
