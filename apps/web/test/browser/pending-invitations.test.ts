import type { Page } from 'playwright-core';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, expectText, signIn, signOut } from '../support/pages';
import { expectJson, startWebServer, type TestServer } from '../support/server';

jest.setTimeout(90_000);

/** What the members panel says after inviting a login, under the dev sign-in these tests use. */
const SEE_INVITATION =
  'They see the invitation under Invitations (at their first sign-in if they have not signed in yet) and join by accepting it.';

describeInChromium('inviting by login, in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let projectId = '';

  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    await signIn(page, server.url, 'olivia');
    projectId = await createProjectInUi(page, 'Shop');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const invite = async (login: string) => {
    await page.getByRole('textbox', { name: 'User name' }).fill(login);
    await page.getByRole('button', { name: 'Invite' }).click();
  };
  const pending = () => page.getByRole('region', { name: 'Invited, not yet joined' });
  const outcome = () => page.locator('form[aria-label="Add member"] [role="status"]');

  it('says the same for a login nobody has used and for a signed-in user, lists both alike, and cancels either', async () => {
    await server.login('carl'); // carl has signed in before; alice has not
    await invite('alice');
    await expectText(outcome(), `Invited alice. ${SEE_INVITATION}`);
    await invite('carl');
    await expectText(outcome(), `Invited carl. ${SEE_INVITATION}`);
    await expectText(pending().locator('li').nth(1), /^carl \(member, invited by olivia\)/);
    expect(await pending().locator('li').allInnerTexts()).toEqual([
      expect.stringMatching(/^alice \(member, invited by olivia\)/),
      expect.stringMatching(/^carl \(member, invited by olivia\)/),
    ]);
    await auditPage(page, 'members-pending');

    await invite('bert');
    await pending().getByRole('button', { name: 'Cancel invitation of bert' }).click();
    await pending().getByText('bert').waitFor({ state: 'detached' });
    await pending().getByRole('button', { name: 'Cancel invitation of carl' }).click();
    await pending().getByText('carl').waitFor({ state: 'detached' });
    expect(await pending().locator('li').allInnerTexts()).toEqual([expect.stringMatching(/^alice /)]);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Invited, not yet joined');
    const owner = await server.login('olivia');
    const listed = await expectJson<{ login: string }[]>(
      await server.request(`/svc/api/projects/${projectId}/pending-invitations`, { as: owner }),
      200,
    );
    expect(listed.map((p) => p.login)).toEqual(['alice']);
    const carl = await server.login('carl');
    expect(await expectJson(await server.request('/svc/api/invitations', { as: carl }), 200)).toEqual([]);
  });

  it('shows alice the invitation at her first sign-in; once she accepts she is a member', async () => {
    await signOut(page);
    await signIn(page, server.url, 'alice');
    const invitations = page.getByRole('region', { name: 'Invitations' });
    await expectText(invitations.locator('li'), /^Shop \(member\)/);
    await invitations.getByRole('button', { name: 'Accept' }).click();
    await page.getByRole('link', { name: 'Shop' }).waitFor();
    const alice = await server.login('alice');
    const members = await expectJson<{ login: string }[]>(
      await server.request(`/svc/api/projects/${projectId}/members`, { as: alice }),
      200,
    );
    expect(members.map((m) => m.login)).toEqual(['olivia', 'alice']);
  });
});
