import type { Page } from 'playwright-core';
import { eventually } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { signIn } from '../support/pages';
import { startWebServer, type TestServer } from '../support/server';

jest.setTimeout(120_000);

// Issue 26: the "Deleted projects" admin page lists deleted projects and restores one.
describeInChromium('deleted projects in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let projectId = '';

  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    const olive = await server.login('olive');
    const created = await server.request('/svc/api/projects', {
      method: 'POST',
      as: olive,
      json: { name: 'Archived' },
    });
    projectId = ((await created.json()) as { id: string }).id;
    await server.request(`/svc/api/projects/${projectId}/storage/kept.txt`, { method: 'PUT', as: olive, body: 'kept' });
    const deleted = await server.request(`/svc/api/projects/${projectId}`, { method: 'DELETE', as: olive });
    if (deleted.status !== 204) throw new Error(`delete: ${deleted.status}`);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lists a deleted project for an administrator and restores it with the Restore button', async () => {
    await signIn(page, server.url, 'root');
    await page.getByRole('link', { name: 'Admin' }).click();
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Deleted projects' }).click();
    await page.getByRole('heading', { level: 1, name: 'Deleted projects' }).waitFor();
    expect(await page.title()).toBe('Deleted projects · svc');
    await page.getByRole('heading', { level: 2, name: 'Archived' }).waitFor();
    await auditPage(page, 'deleted-projects');

    await page.getByRole('button', { name: 'Restore Archived' }).click();
    await page.getByRole('button', { name: 'Yes, restore' }).click();
    await page.getByText('No deleted projects.').waitFor();
    const olive = await server.login('olive');
    await eventually(
      async () =>
        (await server.request(`/svc/api/projects/${projectId}/storage/kept.txt`, { as: olive })).status === 200,
      { what: 'the restored project to serve its object' },
    );
    const audit = await server.request(`/svc/api/projects/${projectId}/audit?action=project.restored`, { as: olive });
    const rows = ((await audit.json()) as { items: { action: string; actor: { login: string } }[] }).items;
    expect(rows.map((r) => `${r.action} ${r.actor.login}`)).toEqual(['project.restored root']);
  });
});
