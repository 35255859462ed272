import type { Page } from 'playwright-core';
import { startOAuth2Provider, type OAuth2Provider } from '../../../api/test/support/oauth2-provider';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, expectText, signIn } from '../support/pages';
import { expectJson, startWebServer, type TestServer } from '../support/server';

jest.setTimeout(90_000);

const INVALID =
  'This invitation link is invalid, has already been used, or has expired. Ask a project owner for a new one.';

describeInChromium('invitation links, in Chromium against the real server (issue 21, finding 4)', () => {
  let server: TestServer;
  /** olivia, the owner */
  let owner: Awaited<ReturnType<typeof launchChromium>>;
  /** dana, who is sent the link: her own browser, signed out at first */
  let guest: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let danaPage: Page;
  let projectId = '';
  let firstLink = '';

  beforeAll(async () => {
    server = await startWebServer();
    owner = await launchChromium();
    await owner.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    guest = await launchChromium();
    page = await owner.context.newPage();
    danaPage = await guest.context.newPage();
    await signIn(page, server.url, 'olivia');
    projectId = await createProjectInUi(page, 'Garden');
  });

  afterAll(async () => {
    await guest?.close();
    await owner?.close();
    await server?.close();
  });

  const linkSection = () => page.getByRole('region', { name: 'Invitation link', exact: true });
  const pending = () => page.getByRole('region', { name: 'Invited, not yet joined' });

  /** Makes a link in the members panel as olivia; resolves with the address shown once. */
  const createLink = async (role: 'member' | 'owner') => {
    await linkSection().getByRole('combobox', { name: 'Joins as' }).selectOption(role);
    await linkSection().getByRole('button', { name: 'Create invitation link' }).click();
    const notice = linkSection().getByRole('region', { name: `Invitation link created (${role})` });
    await notice.waitFor();
    return { notice, url: await notice.getByRole('textbox', { name: 'The invitation link' }).inputValue() };
  };

  /** dana opens a link while signed in and presses Accept. */
  const openAndAccept = async (url: string) => {
    await danaPage.goto(url);
    await danaPage.getByRole('heading', { level: 1, name: 'Invitation to a project' }).waitFor();
    await danaPage.getByRole('button', { name: 'Accept invitation' }).click();
  };

  it('shows the owner how invitations reach people, and a new link once, with a copy button', async () => {
    await expectText(
      page.locator('.invite-hint'),
      'The login of someone who has signed in, or what they prove when they sign in: email:address (their verified ' +
        'e-mail), oauth2:<subject> or sso:<open_id>. With development sign-in, a login nobody has used yet gets the ' +
        'invitation at its first sign-in.',
    );
    const { notice, url } = await createLink('member');
    firstLink = url;
    // The token is in the fragment, which the browser never sends to a server.
    expect(url).toMatch(new RegExp(`^${server.url}/invite#[\\w-]{43}$`));
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Invitation link created (member)');
    expect(await notice.innerText()).toMatch(/It is shown only this once, works once, and expires .+ \(in 7 days\)/);
    await notice.getByRole('button', { name: 'Copy link' }).click();
    await expectText(notice.getByRole('status'), 'Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);

    const listed = await expectJson<{ login: string; role: string }[]>(
      await server.request(`/svc/api/projects/${projectId}/pending-invitations`, { as: await server.login('olivia') }),
      200,
    );
    expect(listed).toEqual([expect.objectContaining({ login: expect.stringMatching(/^link:[0-9a-f]{16}$/) })]);
    const label = listed[0]!.login.slice('link:'.length, 'link:'.length + 8);
    expect(await notice.innerText()).toContain(`listed as “Invitation link ${label}”`);
    await expectText(pending().locator('li'), `Invitation link ${label} (member, made by olivia) Cancel link`);
    await pending()
      .getByRole('button', { name: `Cancel link ${label}` })
      .waitFor();
    await auditPage(page, 'members-invitation-link');

    await notice.getByRole('button', { name: 'Done' }).click();
    await notice.waitFor({ state: 'detached' });
  });

  it('lets a signed-out invitee sign in, keeps the token through it, and joins on Accept', async () => {
    await danaPage.goto(firstLink);
    await danaPage.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    await danaPage.getByText('Sign in to accept the invitation link you opened.').waitFor();
    // The token left the address (and the history) at once; the tab keeps it for after the sign-in.
    expect(danaPage.url()).toBe(`${server.url}/invite`);
    await danaPage.getByRole('textbox', { name: 'User name' }).fill('dana');
    await danaPage.getByRole('button', { name: 'Sign in' }).click();
    await danaPage.getByTestId('current-user').filter({ hasText: 'dana' }).waitFor();
    await danaPage.getByRole('heading', { level: 1, name: 'Invitation to a project' }).waitFor();
    await auditPage(danaPage, 'invite-accept');
    await danaPage.getByRole('button', { name: 'Accept invitation' }).click();

    await danaPage.waitForURL(`**/projects/${projectId}`);
    await danaPage.getByRole('heading', { level: 1, name: 'Garden' }).waitFor();
    await danaPage.getByRole('link', { name: 'Garden' }).waitFor();
    // The owner sees her join and the link go, without reloading.
    await page.getByRole('cell', { name: 'dana', exact: true }).waitFor();
    await pending().waitFor({ state: 'detached' });
    const members = await expectJson<{ login: string; role: string }[]>(
      await server.request(`/svc/api/projects/${projectId}/members`, { as: await server.login('dana') }),
      200,
    );
    expect(members.map((m) => `${m.login}:${m.role}`)).toEqual(['olivia:owner', 'dana:member']);
  });

  it('refuses the used link again with "invalid, used or expired", and a new one to a member as a member', async () => {
    await openAndAccept(firstLink);
    await expectText(danaPage.getByRole('alert'), INVALID);
    await danaPage.getByRole('link', { name: 'Back to your projects' }).waitFor();
    expect(await danaPage.getByRole('button', { name: 'Accept invitation' }).count()).toBe(0);

    const { url } = await createLink('owner');
    await openAndAccept(url);
    await expectText(danaPage.getByRole('alert'), 'You are already a member of this project.');
  });

  it('refuses a link the owner cancelled, and says so for an address without a token', async () => {
    // The refused link above stays outstanding (a member cannot use it): the owner cancels it.
    const entry = pending().locator('li');
    await expectText(entry, /^Invitation link [0-9a-f]{8} \(owner, made by olivia\)/);
    const { url } = await createLink('member');
    await expectText(pending().locator('li').nth(1), /^Invitation link [0-9a-f]{8} \(member, made by olivia\)/);
    const label = (await pending().locator('li .pending-login').nth(1).innerText()).split(' ').pop()!;
    await pending()
      .getByRole('button', { name: `Cancel link ${label}` })
      .click();
    await pending().getByText(`Invitation link ${label}`).waitFor({ state: 'detached' });

    await danaPage.getByRole('button', { name: 'Sign out' }).click();
    await danaPage.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    await danaPage.getByRole('textbox', { name: 'User name' }).fill('erik');
    await danaPage.getByRole('button', { name: 'Sign in' }).click();
    await danaPage.getByTestId('current-user').filter({ hasText: 'erik' }).waitFor();
    await openAndAccept(url);
    await expectText(danaPage.getByRole('alert'), INVALID);

    // An identity is invited as what the invitee proves at sign-in, whoever holds that login.
    await page.getByRole('textbox', { name: 'User name or identity' }).fill('email:Eve@Example.COM');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await expectText(
      page.locator('form[aria-label="Add member"] [role="status"]'),
      'Invited email:eve@example.com. Whoever signs in proving that identity sees the invitation and joins by accepting it.',
    );
    await pending().getByRole('button', { name: 'Cancel invitation of email:eve@example.com' }).waitFor();

    await danaPage.goto(`${server.url}/invite`);
    await danaPage.getByText(/^This address holds no invitation\./).waitFor();
  });
});

describeInChromium('an invitation link across an OAuth 2.0 sign-in, in Chromium against the real server', () => {
  const OLGA = { sub: 'oidc|olga', preferred_username: 'olga', email: 'olga@example.com', email_verified: true };
  const BOB = { sub: 'oidc|bob', preferred_username: 'bob', email: 'bob@example.com', email_verified: true };
  let provider: OAuth2Provider;
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof launchChromium>>;
  let guest: Awaited<ReturnType<typeof launchChromium>>;

  beforeAll(async () => {
    provider = await startOAuth2Provider();
    server = await startWebServer({ AUTH_PROVIDER: 'oauth2', ADMIN_USERS: 'nobody@example.com', ...provider.env });
    owner = await launchChromium();
    guest = await launchChromium();
  });

  afterAll(async () => {
    await guest?.close();
    await owner?.close();
    await server?.close();
    await provider?.close();
  });

  /** Signs in at the provider as `userInfo` with the page's "Sign in" link (the provider answers at once). */
  const signInAtProvider = async (page: Page, userInfo: object, login: string) => {
    await provider.configure({ userInfo: { statusCode: 200, body: userInfo }, token: null });
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByTestId('current-user').filter({ hasText: login }).waitFor();
  };

  it('brings the invitee back to the link after the provider, whose answer returns to the root', async () => {
    const page = await owner.context.newPage();
    await page.goto(server.url);
    await signInAtProvider(page, OLGA, 'olga');
    const projectId = await createProjectInUi(page, 'Orchard');
    await expectText(
      page.locator('.invite-hint'),
      /A login nobody has signed in with yet never receives an invitation: use an identity or an invitation link\.$/,
    );
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const url = await page.getByRole('textbox', { name: 'The invitation link' }).inputValue();

    const bobPage = await guest.context.newPage();
    await bobPage.goto(url);
    await bobPage.getByText('Sign in to accept the invitation link you opened.').waitFor();
    await signInAtProvider(bobPage, BOB, 'bob');
    // The provider sent the browser to `/`: the app went on to the stashed link.
    await bobPage.waitForURL(`${server.url}/invite`);
    await bobPage.getByRole('button', { name: 'Accept invitation' }).click();
    await bobPage.waitForURL(`**/projects/${projectId}`);
    await bobPage.getByRole('heading', { level: 1, name: 'Orchard' }).waitFor();
    await page.getByRole('cell', { name: 'bob', exact: true }).waitFor();
  });
});
