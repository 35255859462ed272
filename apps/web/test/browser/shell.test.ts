import type { Page } from 'playwright-core';
import { eventually } from '@svc/test-kit';
import type { Workflow } from '@svc/protocol';
import { auditPage, expectNoAxeViolations, VIEWPORTS } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, signIn } from '../support/pages';
import { startWebServer, startWorker, type TestServer, type TestWorker } from '../support/server';
import { RunFixtures } from '../support/runs';

jest.setTimeout(90_000);

/** Every browser notification the page shows, recorded around the browser's own Notification. */
const RECORD_NOTIFICATIONS = () => {
  const Real = window.Notification;
  const shown: { title: string; body?: string }[] = [];
  (window as unknown as { shownNotifications: typeof shown }).shownNotifications = shown;
  class Recorded extends Real {
    constructor(title: string, options?: NotificationOptions) {
      super(title, options);
      shown.push({ title, body: options?.body });
    }
  }
  window.Notification = Recorded as typeof Notification;
};
const shownNotifications = (page: Page) =>
  page.evaluate(
    () => (window as unknown as { shownNotifications: { title: string; body?: string }[] }).shownNotifications,
  );

const backgroundOf = (page: Page) => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
const LIGHT_BG = 'rgb(246, 247, 249)';
const DARK_BG = 'rgb(15, 19, 24)';

describeInChromium('the app shell in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let worker: TestWorker;
  let runs: RunFixtures;
  let projectId = '';
  const waiting: Workflow[] = [];
  /** The header's button once it counts `n` runs (its name says what the number means). */
  const waitingButton = (n: string) => page.getByRole('button', { name: `${n} waiting for you`, exact: true });

  beforeAll(async () => {
    server = await startWebServer();
    ({ worker } = await startWorker(server, 'shell-worker', 10));
    browser = await launchChromium();
    await browser.context.addInitScript(RECORD_NOTIFICATIONS);
    page = await browser.context.newPage();
    await signIn(page, server.url, 'olivia');
  });

  afterAll(async () => {
    await browser?.close();
    worker?.close();
    await server?.close();
  });

  it('welcomes a user without projects, with the project menu open on a phone', async () => {
    await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
    expect(await page.title()).toBe('Projects · svc');
    await auditPage(page, 'home');
    await page.setViewportSize(VIEWPORTS.phone);
    const menu = page.getByRole('button', { name: /^Projects/ });
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await page.getByRole('textbox', { name: 'New project' }).isVisible()).toBe(true);
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it('puts the page first on a phone: the project list folds into a one-line menu', async () => {
    projectId = await createProjectInUi(page, 'Shop');
    await createProjectInUi(page, 'Blog');
    await page.getByRole('link', { name: 'Shop' }).click();
    await page.getByRole('heading', { level: 1, name: 'Shop' }).waitFor();
    expect(await page.title()).toBe('Shop · svc');
    await page.setViewportSize(VIEWPORTS.phone);
    const menu = page.getByRole('button', { name: /^Projects/ });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await menu.innerText()).toMatch(/Shop/);
    expect(await page.getByRole('link', { name: 'Blog' }).isVisible()).toBe(false);
    const headingTop = await page
      .getByRole('heading', { level: 1, name: 'Shop' })
      .evaluate((el) => el.getBoundingClientRect().top);
    const headerBottom = await page.locator('.app-header').evaluate((el) => el.getBoundingClientRect().bottom);
    // only the one-line menu (and the page's own padding) between the header and the heading
    expect(headingTop - headerBottom).toBeLessThan(100);

    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await page.getByRole('link', { name: 'Blog' }).click();
    await page.getByRole('heading', { level: 1, name: 'Blog' }).waitFor();
    expect(await page.getByRole('button', { name: /^Projects/ }).getAttribute('aria-expanded')).toBe('false');
    await page.setViewportSize(VIEWPORTS.desktop);
    expect(await page.getByRole('link', { name: 'Shop' }).isVisible()).toBe(true);
  });

  it('follows the system’s dark preference, and the theme choice overrides it and is remembered', async () => {
    await page.goto(`${server.url}/projects/${projectId}`);
    await page.getByRole('heading', { level: 1, name: 'Shop' }).waitFor();
    const theme = page.getByRole('combobox', { name: 'Colour theme' });
    expect(await theme.inputValue()).toBe('system');
    expect(await backgroundOf(page)).toBe(LIGHT_BG);

    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await backgroundOf(page)).toBe(DARK_BG);
    await auditPage(page, 'project-page-dark');

    await theme.selectOption('light');
    expect(await backgroundOf(page)).toBe(LIGHT_BG);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Shop' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Colour theme' }).inputValue()).toBe('light');
    expect(await backgroundOf(page)).toBe(LIGHT_BG);

    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('combobox', { name: 'Colour theme' }).selectOption('dark');
    expect(await backgroundOf(page)).toBe(DARK_BG);
    expect(await page.evaluate(() => localStorage.getItem('svc-theme'))).toBe('dark');
    await expectNoAxeViolations(page, 'the project page in the dark theme chosen on a light system');

    await page.getByRole('combobox', { name: 'Colour theme' }).selectOption('system');
    expect(await backgroundOf(page)).toBe(LIGHT_BG);
    expect(await page.evaluate(() => localStorage.getItem('svc-theme'))).toBeNull();
  });

  it('answers an unknown address with "Page not found" and a way back to the projects', async () => {
    await page.goto(`${server.url}/no/such/page`);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    expect(await page.title()).toMatch(/^Page not found/);
    await auditPage(page, 'page-not-found');
    await page.getByRole('link', { name: 'Back to your projects' }).click();
    await page.getByRole('heading', { level: 1, name: 'Shop' }).waitFor();
  });

  it('counts the runs waiting for the user in the header and the tab title, live', async () => {
    runs = new RunFixtures(server, worker, await server.login('olivia'), projectId);
    await waitingButton('0').waitFor();
    waiting.push(await runs.create('A shop with a cart'));
    await runs.running(waiting[0]!.id, 0, 2);
    await runs.waiting(waiting[0]!.id, 'Which currency should prices use?');
    await waitingButton('1').waitFor();
    await eventually(async () => expect(await page.title()).toBe('(1) Shop · svc'));

    waiting.push(await runs.create('A blog with comments'));
    await runs.running(waiting[1]!.id, 0, 2);
    await runs.waiting(waiting[1]!.id, 'Should comments be moderated?');
    await waitingButton('2').waitFor();
    await eventually(async () => expect(await page.title()).toBe('(2) Shop · svc'));
  });

  it('lists the waiting runs with their questions, each linking to its page', async () => {
    const count = page.getByTestId('waiting-count');
    await count.click();
    expect(await count.getAttribute('aria-expanded')).toBe('true');
    const panel = page.getByRole('region', { name: 'Runs waiting for your answer' });
    await panel.getByText('Should comments be moderated?').waitFor();
    await panel.getByText('Which currency should prices use?').waitFor();
    await auditPage(page, 'waiting-panel');

    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    expect(await count.evaluate((el) => el === document.activeElement)).toBe(true);

    await count.click();
    await panel.getByRole('link', { name: new RegExp(`^#${waiting[0]!.number} `) }).click();
    await page.waitForURL(`**/workflows/${waiting[0]!.id}`);
    await panel.waitFor({ state: 'detached' });
  });

  it('shows a browser notification, once opted in, when a run starts waiting', async () => {
    await browser.context.grantPermissions(['notifications'], { origin: server.url });
    await page.goto(`${server.url}/projects/${projectId}`);
    await page.getByTestId('waiting-count').click();
    await page.getByRole('button', { name: 'Notify me when a run needs my answer' }).click();
    await page.getByRole('button', { name: 'Turn off notifications' }).waitFor();
    expect(await shownNotifications(page)).toEqual([]);

    const third = await runs.create('A photo gallery');
    await runs.running(third.id, 0, 1);
    await runs.waiting(third.id, 'Which image sizes?');
    await waitingButton('3').waitFor();
    expect(await shownNotifications(page)).toEqual([
      { title: `Run #${third.number} needs your answer`, body: 'Shop: Which image sizes?' },
    ]);

    // answered: the count goes down, and no notification is shown for a run that stopped waiting
    await runs.store(third.id, { kind: 'status', data: { status: 'running' } });
    await waitingButton('2').waitFor();
    await eventually(async () => expect(await page.title()).toBe('(2) Shop · svc'));
    expect(await shownNotifications(page)).toHaveLength(1);
  });
});
