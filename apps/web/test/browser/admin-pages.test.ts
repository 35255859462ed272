import type { Page } from 'playwright-core';
import { eventually } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { expectText, signIn, signOut } from '../support/pages';
import { expectJson, startWebServer, type TestServer } from '../support/server';

jest.setTimeout(90_000);

const PORTS = [
  '# Ports',
  '',
  'Every service listens on a **fixed** port.',
  '',
  '## Web',
  'The web app listens on port `3000`.',
  '',
  '## API',
  'The API server listens on port 8080 behind the [proxy](https://example.com/proxy).',
  '',
  '- health: `/svc/api/health`',
  '- docs: `/svc/api/docs`',
].join('\n');

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

  it('renders an article as markdown without repeating its title', async () => {
    await page.getByRole('link', { name: 'Knowledge base' }).click();
    await page.getByRole('button', { name: 'New article' }).click();
    await page.getByRole('textbox', { name: 'Title' }).fill('Ports');
    await page.getByRole('textbox', { name: 'Content (markdown)' }).fill(PORTS);
    await page.getByRole('button', { name: 'Create article' }).click();
    const article = page.locator('article');
    await article.getByRole('heading', { level: 2, name: 'Ports' }).waitFor();
    // The title shows once (the article's heading), not again from the content's "# Ports".
    expect(await page.getByRole('heading', { name: 'Ports', exact: true }).count()).toBe(1);
    const content = article.locator('.markdown');
    expect(await content.locator('strong').innerText()).toBe('fixed');
    expect(await content.locator('h2').allInnerTexts()).toEqual(['Web', 'API']);
    expect(await content.locator('li code').allInnerTexts()).toEqual(['/svc/api/health', '/svc/api/docs']);
    expect(await content.getByRole('link', { name: 'proxy' }).getAttribute('rel')).toBe('noopener noreferrer');
    expect(await content.innerText()).not.toMatch(/##|\*\*/);
    expect(await page.title()).toBe('Ports · Knowledge base · svc');
    await auditPage(page, 'kb-article');
  });

  it('lists search hits under their section heading, with the article, a plain excerpt and a real match', async () => {
    await page.getByRole('searchbox').fill('API server port proxy');
    await page.getByRole('button', { name: 'Search' }).click();
    const first = page.locator('.search-hit').first();
    await expectText(first.getByRole('heading', { level: 3 }), 'API');
    const meta = await first.locator('.hit-meta').innerText();
    expect(meta).toMatch(/^in Ports · (\d+) % match$/);
    expect(Number(/(\d+) %/.exec(meta)![1])).toBeGreaterThan(20);
    const excerpt = await first.locator('.snippet').innerText();
    expect(excerpt).toBe(
      'The API server listens on port 8080 behind the proxy. health: /svc/api/health docs: /svc/api/docs',
    );
    const scores = await page.locator('.hit-meta').allInnerTexts();
    const percents = scores.map((s) => Number(/(\d+) %/.exec(s)![1]));
    expect(percents).toEqual([...percents].sort((a, b) => b - a));
    await auditPage(page, 'kb-search');
  });

  it('shows every setting the service reads as a documented form, and saves model prices', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    const prices = page.getByRole('region', { name: 'LLM prices' });
    await prices.waitFor();
    expect(await prices.innerText()).toMatch(/estimated cost/);
    expect(await prices.innerText()).toMatch(/default \{\}/);
    const retention = page.getByRole('region', { name: 'LLM call detail retention (days)' });
    expect(await retention.innerText()).toMatch(/default 30/);
    await auditPage(page, 'settings');

    await prices.getByRole('button', { name: 'Add model' }).click();
    await prices.getByRole('textbox', { name: 'Model of row 1' }).fill('gpt-4o-mini');
    await prices.getByRole('textbox', { name: /Prompt price of row 1/ }).fill('0.15');
    await prices.getByRole('textbox', { name: /Completion price of row 1/ }).fill('abc');
    await prices.getByRole('button', { name: 'Save prices' }).click();
    await expectText(prices.getByRole('alert'), 'Row 1: the completion price must be a number, 0 or more.');
    await prices.getByRole('textbox', { name: /Completion price of row 1/ }).fill('0.6');
    await prices.getByRole('button', { name: 'Save prices' }).click();
    await expectText(prices.getByRole('status'), 'Saved.');
    const root = await server.login('root');
    const stored = await expectJson<Record<string, string>>(
      await server.request('/svc/api/settings', { as: root }),
      200,
    );
    expect(JSON.parse(stored.llm_prices!)).toEqual({
      'gpt-4o-mini': { prompt_per_million: 0.15, completion_per_million: 0.6 },
    });
    await auditPage(page, 'settings-prices');
  });

  it('shows the server’s reason in words when a value is refused, and saves a valid one', async () => {
    const retention = page.getByRole('region', { name: 'LLM call detail retention (days)' });
    const value = retention.getByRole('textbox', { name: 'Value' });
    await value.fill('-3');
    await retention.getByRole('button', { name: 'Save' }).click();
    // the setting by its label, not the request field and key (`body.value: llm_detail_retention_days: …`)
    await expectText(
      retention.getByRole('alert'),
      'Not saved: LLM call detail retention (days) must be a whole number.',
    );
    await value.fill('14');
    await retention.getByRole('button', { name: 'Save' }).click();
    const root = await server.login('root');
    await eventually(async () => {
      const settings = await expectJson<Record<string, string>>(
        await server.request('/svc/api/settings', { as: root }),
        200,
      );
      expect(settings.llm_detail_retention_days).toBe('14');
    });
  });

  it('shows settings read-only and no article editing to someone who is not an administrator', async () => {
    await signOut(page);
    await signIn(page, server.url, 'nina');
    await page.getByRole('link', { name: 'Settings' }).click();
    const prices = page.getByRole('region', { name: 'LLM prices' });
    await prices.getByRole('rowheader', { name: 'gpt-4o-mini' }).waitFor();
    expect(await prices.getByRole('cell').allInnerTexts()).toEqual(['0.15', '0.6']);
    expect(await page.getByRole('region', { name: 'LLM call detail retention (days)' }).innerText()).toMatch(
      /Value: 14/,
    );
    // The service's settings are read-only (the person's own notification preferences above them are not).
    const service = page.getByRole('region', { name: 'Service settings' });
    expect(await service.getByRole('textbox').count()).toBe(0);
    expect(await service.getByRole('button').count()).toBe(0);
    await auditPage(page, 'settings-read-only');
    await page.getByRole('link', { name: 'Knowledge base' }).click();
    await page.getByRole('heading', { level: 2, name: 'Articles' }).waitFor();
    expect(await page.getByRole('button', { name: 'New article' }).count()).toBe(0);
  });
});
