import type { Page } from 'playwright-core';
import type { Project } from '@svc/protocol';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, expectText, projectIdFromUrl, signIn, signOut } from '../support/pages';
import { expectJson, startWebServer, startWorker, type TestServer } from '../support/server';

jest.setTimeout(60_000);

/** What the members panel says after inviting a login, under the dev sign-in these tests use. */
const SEE_INVITATION =
  'They see the invitation under Invitations (at their first sign-in if they have not signed in yet) and join by accepting it.';

describeInChromium('projects in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    await signIn(page, server.url, 'olivia');
    for (const name of ['Alpha', 'Beta', 'Gamma']) ids[name] = await createProjectInUi(page, name);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const sidebarNames = () => page.locator('.project-list a').allInnerTexts();

  it('lists the projects in order and opens the first from the home page', async () => {
    expect(await sidebarNames()).toEqual(['Alpha', 'Beta', 'Gamma']);
    await page.goto(server.url);
    await page.waitForURL(`**/projects/${ids.Alpha}`);
    await page.getByRole('heading', { level: 1, name: 'Alpha' }).waitFor();
  });

  it('keeps the workflow list live: another member’s workflow and its status appear without reloading', async () => {
    // bob has signed in: he gets an ordinary invitation and joins only by accepting it.
    const bob = await server.login('bob');
    await page.getByRole('textbox', { name: 'User name' }).fill('bob');
    await page.getByRole('button', { name: 'Invite' }).click();
    await expectText(page.locator('form[aria-label="Add member"] [role="status"]'), `Invited bob. ${SEE_INVITATION}`);
    expect(await page.getByRole('cell', { name: 'bob', exact: true }).count()).toBe(0);
    await expectJson(
      await server.request(`/svc/api/invitations/${ids.Alpha}/accept`, { method: 'POST', as: bob }),
      201,
    );
    await page.getByRole('cell', { name: 'bob', exact: true }).waitFor();

    const { worker } = await startWorker(server, 'list-worker');
    const created = await expectJson<{ id: string }>(
      await server.request(`/svc/api/projects/${ids.Alpha}/workflows`, {
        method: 'POST',
        as: bob,
        json: { requirement: 'Bob’s landing page\nwith a form' },
      }),
      201,
    );
    const item = page.locator(`.workflow-item[data-workflow-id="${created.id}"]`);
    await expectText(item.locator('.workflow-title'), 'Bob’s landing page');
    await worker.dispatch(created.id, 'start');
    await worker.store(created.id, 1, { kind: 'status', data: { status: 'running' } });
    await worker.store(created.id, 2, { kind: 'title', data: { title: 'Landing page with a contact form' } });
    await expectText(item.locator('[data-status]'), 'Running');
    await expectText(item.locator('.workflow-title'), 'Landing page with a contact form');
    worker.close();
  });

  it('lets an owner remove a member but not the last owner', async () => {
    await page.getByRole('button', { name: 'Remove bob' }).click();
    await page.getByRole('cell', { name: 'bob', exact: true }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Remove olivia' }).click();
    await expectText(page.getByRole('alert').filter({ hasText: 'owner' }), 'the last owner cannot be removed');
  });

  it('after deleting the current project selects the next one (spec rule 14)', async () => {
    await page.getByRole('link', { name: 'Beta' }).click();
    await page.getByRole('heading', { level: 1, name: 'Beta' }).waitFor();
    await page.getByRole('button', { name: 'Delete project' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.waitForURL(`**/projects/${ids.Gamma}`);
    await page.getByRole('heading', { level: 1, name: 'Gamma' }).waitFor();
    expect(await sidebarNames()).toEqual(['Alpha', 'Gamma']);
    const listed = await expectJson<Project[]>(
      await server.request('/svc/api/projects', { as: await server.login('olivia') }),
      200,
    );
    expect(listed.map((p) => p.name)).toEqual(['Alpha', 'Gamma']);
  });

  it('selects the previous project when the deleted one was last, and the welcome page when none is left', async () => {
    await page.getByRole('button', { name: 'Delete project' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.waitForURL(`**/projects/${ids.Alpha}`);
    expect(projectIdFromUrl(page.url())).toBe(ids.Alpha);
    await page.getByRole('button', { name: 'Delete project' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await sidebarNames()).toEqual([]);
  });

  it('signs out back to the sign-in form', async () => {
    await signOut(page);
    await auditPage(page, 'sign-in');
    expect(
      (
        await server.request('/svc/api/me', {
          headers: { cookie: (await browser.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') },
        })
      ).status,
    ).toBe(401);
  });
});
