import type { Locator, Page } from 'playwright-core';
import { describeInChromium, launchChromium } from '../support/chromium';
import { snapshot } from '@svc/test-kit';
import { expectText } from '../support/pages';
import { startWebServer, startWorker, type TestServer, type TestWorker } from '../support/server';

jest.setTimeout(90_000);

/** Presses Tab until `target` has focus; fails when it is not reachable that way. */
async function tabTo(page: Page, target: Locator, maxPresses = 80): Promise<void> {
  for (let i = 0; i < maxPresses; i++) {
    await page.keyboard.press('Tab');
    if (await isFocused(target)) return;
  }
  throw new Error(`not reachable with Tab: ${target.toString()}`);
}

const isFocused = async (target: Locator) =>
  (await target.count()) === 1 && (await target.evaluate((el) => el === document.activeElement));

/** Tag and text of the focused element, e.g. "BUTTON Yes, cancel workflow" ("BODY" when focus was dropped). */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el ? `${el.tagName} ${(el as HTMLElement).innerText ?? ''}`.trim() : 'none';
  });

describeInChromium('keyboard only: create a project, start a run, answer it, cancel it, delete the project', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let worker: TestWorker;
  let workflowId = '';
  let lastSeq = 0;

  beforeAll(async () => {
    server = await startWebServer();
    ({ worker } = await startWorker(server, 'keyboard-worker'));
    browser = await launchChromium();
    page = await browser.context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    worker?.close();
    await server?.close();
  });

  it('signs in and creates two projects', async () => {
    await page.goto(server.url);
    await tabTo(page, page.getByRole('textbox', { name: 'User name' }));
    await page.keyboard.type('kim');
    await page.keyboard.press('Enter');
    await page.getByTestId('current-user').filter({ hasText: 'kim' }).waitFor();
    for (const name of ['Alpha', 'Keyboard shop']) {
      await tabTo(page, page.getByRole('textbox', { name: 'New project' }));
      await page.keyboard.type(name);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name }).waitFor();
    }
  });

  it('starts a run, which opens its page', async () => {
    await tabTo(page, page.getByRole('textbox', { name: 'Requirement' }));
    await page.keyboard.type('A to-do app');
    await tabTo(page, page.getByRole('button', { name: 'Start workflow' }));
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/workflows\/[^/]+$/);
    workflowId = decodeURIComponent(page.url().split('/workflows/')[1]!);
    lastSeq = (await worker.dispatch(workflowId, 'start')).last_seq as number;
  });

  it("answers the agent's question with the keyboard, and the worker gets the answer", async () => {
    // a plan first: an answer resumes the agent from its latest snapshot
    expect(await worker.store(workflowId, ++lastSeq, snapshot('executing', 0, ['running', 'pending']))).toMatchObject({
      type: 'ack',
    });
    const asked = await worker.store(workflowId, ++lastSeq, {
      kind: 'status',
      data: { status: 'waiting_user', question: 'Which colour should the buttons be?' },
    });
    expect(asked).toMatchObject({ type: 'ack' });
    const answerBox = page.getByRole('textbox', { name: 'Your answer' });
    await tabTo(page, answerBox);
    await page.keyboard.type('Teal, please');
    await tabTo(page, page.getByRole('button', { name: 'Send answer' }));
    await page.keyboard.press('Enter');
    expect((await worker.dispatch(workflowId, 'answer')).message).toBe('Teal, please');
    await answerBox.waitFor({ state: 'detached' });
    expect(await focused(page)).not.toBe('BODY');
  });

  it('cancels it: the question takes focus, Escape returns it, and confirming never drops it to <body>', async () => {
    const trigger = page.getByRole('button', { name: 'Cancel workflow' });
    await tabTo(page, trigger);
    await page.keyboard.press('Enter');
    expect(await focused(page)).toMatch(/^BUTTON Yes, cancel/);
    await page.keyboard.press('Escape');
    expect(await isFocused(trigger)).toBe(true);

    await page.keyboard.press('Enter');
    expect(await focused(page)).toMatch(/^BUTTON Yes, cancel/);
    await page.keyboard.press('Enter');
    await expectText(page.locator('.run-head [data-status]'), 'Cancelled');
    await trigger.waitFor({ state: 'detached' });
    expect(await focused(page)).not.toBe('BODY');
    expect(await page.evaluate(() => document.querySelector('main')?.contains(document.activeElement))).toBe(true);
  });

  it('deletes the project: "Keep project" keeps it, "Yes, delete project" selects the next and focuses its heading', async () => {
    await tabTo(page, page.getByRole('link', { name: /Keyboard shop/ }).first());
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Keyboard shop' }).waitFor();

    const trigger = page.getByRole('button', { name: 'Delete project' });
    await tabTo(page, trigger);
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('BUTTON Yes, delete project');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('BUTTON Keep project');
    await page.keyboard.press('Enter');
    expect(await isFocused(trigger)).toBe(true);
    expect(await page.getByRole('heading', { level: 1, name: 'Keyboard shop' }).count()).toBe(1);

    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    const next = page.getByRole('heading', { level: 1, name: 'Alpha' });
    await next.waitFor();
    expect(await page.locator('.project-list a').allInnerTexts()).toEqual(['Alpha']);
    await expectText(page.locator(':focus'), 'Alpha');
    expect(await isFocused(next)).toBe(true);
  });
});
