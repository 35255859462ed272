import type { Page } from 'playwright-core';
import { eventually } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, signIn } from '../support/pages';
import { startWebServer, type TestServer } from '../support/server';
import { addMember } from './run-support';

jest.setTimeout(120_000);

/** The actions in the visible audit table, top (newest) first. */
async function tableActions(page: Page): Promise<string[]> {
  return page.getByRole('table', { name: 'Audit events' }).locator('tbody tr td:nth-child(2)').allInnerTexts();
}

async function expectActions(page: Page, expected: string[]): Promise<void> {
  await eventually(async () => JSON.stringify(await tableActions(page)) === JSON.stringify(expected), {
    what: `the audit table to show ${expected.join(', ')}`,
  });
}

// Issue 26: the "Audit log" admin page and a project owner's audit panel.
describeInChromium('the audit log in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let projectId = '';

  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    await signIn(page, server.url, 'olive');
    projectId = await createProjectInUi(page, 'Audited');
    await addMember(server, await server.login('olive'), projectId, 'mia');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows an owner their project's audit log, filtered by action", async () => {
    await page.reload();
    await page.locator('summary', { hasText: 'Audit log' }).click();
    await expectActions(page, ['member.added', 'invitation.created', 'project.created']);
    const table = page.getByRole('table', { name: 'Audit events' });
    expect(await table.locator('thead th').allInnerTexts()).not.toContain('Project');
    expect(await table.locator('tbody tr').first().locator('td').nth(2).innerText()).toBe('mia');
    await page.getByRole('textbox', { name: 'Action starts with' }).fill('member.');
    await expectActions(page, ['member.added']);
    expect(await page.getByRole('link', { name: 'Export as JSON lines' }).getAttribute('href')).toBe(
      `/svc/api/projects/${projectId}/audit?format=jsonl`,
    );
    await auditPage(page, 'project-audit-log');
  });

  it('shows administrators the whole log on the Audit log admin page, and exports it as JSON lines', async () => {
    const admin = await browser.context.newPage();
    await browser.context.clearCookies();
    await signIn(admin, server.url, 'root');
    await admin.getByRole('link', { name: 'Admin' }).click();
    await admin.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Audit log' }).click();
    await admin.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    expect(await admin.title()).toBe('Audit log · svc');
    await expectActions(admin, [
      'auth.sign_in',
      'member.added',
      'invitation.created',
      'auth.sign_in',
      'auth.sign_in',
      'project.created',
      'auth.sign_in',
    ]);
    const table = admin.getByRole('table', { name: 'Audit events' });
    expect(await table.locator('thead th').allInnerTexts()).toContain('Project');
    await admin.getByRole('textbox', { name: 'Action starts with' }).fill('project.');
    await expectActions(admin, ['project.created']);
    expect(await table.locator('tbody tr').first().locator('td').nth(4).innerText()).toBe(projectId);
    const exported = await admin.evaluate(async () => (await fetch('/svc/api/admin/audit?format=jsonl')).text());
    const lines = exported
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string });
    expect(lines.map((l) => l.action)).toContain('project.created');
    await auditPage(admin, 'admin-audit-log');
    await admin.close();
  });
});
