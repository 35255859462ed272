import type { Page } from 'playwright-core';
import { eventually } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, expectText, signIn, unfoldedForm } from '../support/pages';
import { startWebServer, type TestServer } from '../support/server';

jest.setTimeout(90_000);

describeInChromium('schedules panel in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let projectId: string;

  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    await signIn(page, server.url, 'sam');
    projectId = await createProjectInUi(page, 'Cron');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('creates a schedule, shows its next fire times and the run a tick started, pauses and deletes it', async () => {
    const form = await unfoldedForm(page, 'New schedule');
    await form.getByRole('textbox', { name: 'Name' }).fill('heartbeat');
    await form.getByRole('textbox', { name: /^Cron/ }).fill('*/2 * * * * *');
    await form.getByRole('textbox', { name: 'Time zone' }).fill('Europe/Berlin');
    await form.getByRole('textbox', { name: 'Requirement' }).fill('Check the site answers');
    await form.getByRole('combobox', { name: 'While the previous run is unfinished' }).selectOption('allow');
    await form.getByRole('button', { name: 'Create schedule' }).click();

    const item = page.getByRole('listitem', { name: 'Schedule heartbeat' });
    await expectText(item.locator('.schedule-next'), /^Next: /);
    await expect5FireTimes(item.locator('details li'));

    // A tick's run shows with a link to it (after a reload; the panel also refreshes on its own).
    const runLink = await eventually(
      async () => {
        await page.reload();
        // the list has loaded again before the links are counted
        await item.locator('.schedule-next').waitFor();
        const link = item.getByRole('link', { name: 'open run' }).first();
        return (await link.count()) > 0 && link;
      },
      { what: 'a tick with its run', intervalMs: 1000 },
    );
    const href = await runLink.getAttribute('href');
    expect(href).toMatch(new RegExp(`^/projects/${projectId}/workflows/[^/]+$`));
    const runs = await (
      await server.request(`/svc/api/projects/${projectId}/workflows`, { as: await server.login('sam') })
    ).json();
    expect((runs as { items: { id: string }[] }).items.map((w) => w.id)).toContain(href!.split('/').pop());
    await auditPage(page, 'project-schedule');

    await item.getByRole('button', { name: 'Pause' }).click();
    await expectText(item.locator('.schedule-next'), 'Paused');
    await item.getByRole('button', { name: 'Resume' }).waitFor();

    await item.getByRole('button', { name: 'Delete schedule heartbeat' }).click();
    await page.getByRole('button', { name: 'Delete schedule', exact: true }).click();
    await item.waitFor({ state: 'detached' });
    expect(await page.getByText('No schedules yet.').count()).toBe(1);
  });

  it('shows the server’s refusal of a bad cron and creates nothing', async () => {
    const form = await unfoldedForm(page, 'New schedule');
    await form.getByRole('textbox', { name: 'Name' }).fill('broken');
    await form.getByRole('textbox', { name: /^Cron/ }).fill('61 * * * *');
    await form.getByRole('textbox', { name: 'Requirement' }).fill('x');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    await expectText(form.getByRole('alert'), /body\.cron/);
    expect(await page.getByRole('listitem', { name: 'Schedule broken' }).count()).toBe(0);
  });
});

async function expect5FireTimes(items: ReturnType<Page['locator']>): Promise<void> {
  await eventually(async () => (await items.count()) === 5);
}
