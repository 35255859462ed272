import type { Page } from 'playwright-core';
import { eventually } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, expectText, signIn, unfoldedForm } from '../support/pages';
import { expectJson, startWebServer, type TestServer } from '../support/server';
import { addMember } from './run-support';

jest.setTimeout(120_000);

const FIRST_VALUE = 'tok-first-5b1f0c9e2d';
const SECOND_VALUE = 'tok-second-77aa19e0c4';

/** Every body the page received from the server (REST answers and socket frames), as text. */
function recordReceived(page: Page): () => Promise<string[]> {
  const pending: Promise<string>[] = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/svc/')) pending.push(response.text().catch(() => ''));
  });
  page.on('websocket', (socket) =>
    socket.on('framereceived', ({ payload }) => pending.push(Promise.resolve(String(payload)))),
  );
  return () => Promise.all(pending);
}

/**
 * The project page once every panel has loaded, so nothing above a panel still grows and moves the button a
 * test is about to click (the budget panel appears only once read).
 */
async function projectPageSettled(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 2, name: 'Default run budget' }).waitFor();
  await eventually(async () => (await page.getByText(/^Loading .+…$/).count()) === 0, {
    what: 'the project page to load every panel',
  });
}

// Issue 24: the project page's Secrets panel (names, who and when; values write-only) and MCP servers panel.
describeInChromium('secrets and MCP servers on the project page (Chromium, real server)', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let received: () => Promise<string[]>;
  let olive = '';
  let projectId = '';

  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    received = recordReceived(page);
    await signIn(page, server.url, 'olive');
    olive = await server.login('olive');
    projectId = await createProjectInUi(page, 'Deploys');
    await projectPageSettled(page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('adds an http and a command server, deletes one, disables and edits the other', async () => {
    const panel = page.getByRole('region', { name: 'MCP servers' });
    const add = await unfoldedForm(page, 'Add an MCP server');
    await add.getByRole('textbox', { name: 'Name', exact: true }).fill('tracker');
    await add.getByRole('textbox', { name: 'URL' }).fill('https://mcp.example.com/mcp');
    await add.getByRole('textbox', { name: /^Headers/ }).fill('Authorization: Bearer ${{ secrets.TRACKER_TOKEN }}');
    await add.getByRole('button', { name: 'Add server' }).click();
    const tracker = panel.getByRole('listitem', { name: 'MCP server tracker' });
    await expectText(tracker.locator('.mcp-target'), 'https://mcp.example.com/mcp');
    await tracker.getByText('writes need approval').waitFor();

    await add.getByRole('radio', { name: /^Command/ }).check();
    await add.getByRole('textbox', { name: 'Name', exact: true }).fill('files');
    await add.getByRole('textbox', { name: /^Command/ }).fill('npx\n-y\n@modelcontextprotocol/server-filesystem\n.');
    await add.getByRole('textbox', { name: /^Environment/ }).fill('API_KEY=${{ secrets.FILES_KEY }}');
    await add.getByRole('button', { name: 'Add server' }).click();
    const files = panel.getByRole('listitem', { name: 'MCP server files' });
    await expectText(files.locator('.mcp-target'), 'npx -y @modelcontextprotocol/server-filesystem .');
    await files.getByRole('button', { name: 'Delete MCP server files' }).click();
    await files.getByRole('button', { name: 'Delete server' }).click();
    await files.waitFor({ state: 'detached' });

    await tracker.getByRole('button', { name: 'Disable' }).click();
    await tracker.getByText('disabled', { exact: true }).waitFor();
    await tracker.getByRole('button', { name: 'Edit' }).click();
    const edit = tracker.getByRole('form', { name: 'Edit MCP server tracker' });
    expect(await edit.getByRole('textbox', { name: 'Name', exact: true }).getAttribute('readonly')).not.toBeNull();
    await edit.getByRole('checkbox', { name: 'Let its tools change things without asking' }).check();
    await edit.getByRole('button', { name: 'Save server' }).click();
    await edit.waitFor({ state: 'detached' });
    await tracker.getByText('writes without asking').waitFor();

    const stored = await expectJson<{ items: unknown[] }>(
      await server.request(`/svc/api/projects/${projectId}/mcp-servers`, { as: olive }),
      200,
    );
    expect(stored.items).toEqual([
      expect.objectContaining({
        name: 'tracker',
        transport: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer ${{ secrets.TRACKER_TOKEN }}' },
        allow_writes: true,
        enabled: false,
      }),
    ]);
  });

  it('sets and replaces a secret whose value the page never shows nor receives; a member sees names only', async () => {
    const panel = page.getByRole('region', { name: 'Secrets' });
    const form = await unfoldedForm(page, 'Set a secret');
    const value = form.getByLabel('Value');
    expect(await value.getAttribute('type')).toBe('password');
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('DEPLOY_TOKEN');
    await value.fill(FIRST_VALUE);
    await form.getByRole('button', { name: 'Save secret' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved DEPLOY_TOKEN.' }).waitFor();
    expect(await value.inputValue()).toBe('');
    const row = panel.getByRole('row', { name: /DEPLOY_TOKEN/ });
    await expectText(row.getByRole('cell').first(), 'olive');

    // the same name again replaces the value
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('DEPLOY_TOKEN');
    await value.fill(SECOND_VALUE);
    await form.getByRole('button', { name: 'Save secret' }).click();
    // saving invalidates the events too, so they show the replacement once it is done
    await panel.locator('summary', { hasText: 'Secret events' }).click();
    const events = panel.getByRole('list', { name: 'Secret events' });
    await events
      .getByRole('listitem')
      .filter({ hasText: /DEPLOY_TOKEN updated by olive$/ })
      .waitFor();
    await events
      .getByRole('listitem')
      .filter({ hasText: /DEPLOY_TOKEN created by olive$/ })
      .waitFor();
    expect(await panel.getByRole('row').count()).toBe(2); // the header and DEPLOY_TOKEN
    await auditPage(page, 'project-secrets-and-mcp');

    // Too short a value: the server's error, nothing saved.
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('SHORT');
    await value.evaluate((input: HTMLInputElement) => input.removeAttribute('minlength'));
    await value.fill('abc');
    await form.getByRole('button', { name: 'Save secret' }).click();
    await form.getByRole('alert').waitFor();
    expect(await panel.getByRole('row', { name: /SHORT/ }).count()).toBe(0);
    await value.fill('');

    const shown = [
      await page.content(),
      ...(await page.locator('input').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))),
    ];
    const bodies = await received();
    expect(bodies.some((body) => body.includes('DEPLOY_TOKEN'))).toBe(true);
    for (const text of [...shown, ...bodies]) {
      expect(text).not.toContain(FIRST_VALUE);
      expect(text).not.toContain(SECOND_VALUE);
    }

    // bob, a member: the names, who and when; no form, no delete, no MCP server editing
    await addMember(server, olive, projectId, 'bob');
    await browser.context.clearCookies();
    await signIn(page, server.url, 'bob');
    await page.goto(`${server.url}/projects/${projectId}`);
    await expectText(
      panel
        .getByRole('row', { name: /DEPLOY_TOKEN/ })
        .getByRole('cell')
        .first(),
      'olive',
    );
    await panel.getByText("Only the project's owners add, replace or delete secrets.").waitFor();
    expect(await page.getByRole('form', { name: 'Set a secret' }).count()).toBe(0);
    expect(await panel.getByRole('button', { name: /Delete/ }).count()).toBe(0);
    const mcp = page.getByRole('region', { name: 'MCP servers' });
    await mcp.getByRole('listitem', { name: 'MCP server tracker' }).waitFor();
    expect(await mcp.getByRole('button').count()).toBe(0);
    expect(await page.locator('summary', { hasText: 'Add an MCP server' }).count()).toBe(0);

    // olive deletes it
    await browser.context.clearCookies();
    await signIn(page, server.url, 'olive');
    await page.goto(`${server.url}/projects/${projectId}`);
    await projectPageSettled(page);
    await panel.getByRole('button', { name: 'Delete secret DEPLOY_TOKEN' }).click();
    await panel.getByRole('button', { name: 'Delete secret', exact: true }).click();
    await panel.getByText('No secrets yet.').waitFor();
  });

  it('lets an administrator set an instance secret for templates only on the admin page', async () => {
    await browser.context.clearCookies();
    await signIn(page, server.url, 'root'); // ADMIN_USERS=root in the test server
    await page.goto(`${server.url}/admin/secrets`);
    await page.getByRole('heading', { level: 1, name: 'Instance secrets' }).waitFor();
    const form = await unfoldedForm(page, 'Set a secret');
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('ORG_TOKEN');
    await form.getByLabel('Value').fill(FIRST_VALUE);
    await form.getByRole('combobox', { name: 'Given to' }).selectOption('templates');
    await form.getByRole('button', { name: 'Save secret' }).click();
    const row = page.getByRole('row', { name: /ORG_TOKEN/ });
    await expectText(row.getByRole('cell').first(), 'runs of templates naming it');
    await auditPage(page, 'admin-instance-secrets');
    expect(await page.content()).not.toContain(FIRST_VALUE);
  });
});
