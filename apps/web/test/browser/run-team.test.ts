import type { Page } from 'playwright-core';
import { eventually } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { expectText, signIn } from '../support/pages';
import { startWebServer, startWorker, type TestServer, type TestWorker } from '../support/server';
import {
  addMember,
  createProject,
  expectStatus,
  focused,
  openRun,
  planUpdate,
  runUrl,
  shownSteps,
  startRun,
} from './run-support';

jest.setTimeout(90_000);

describeInChromium('run page with a team: who did what, drafts kept (Chromium, real server)', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let worker: TestWorker;
  let alice = '';
  let bob = '';

  beforeAll(async () => {
    server = await startWebServer();
    ({ worker } = await startWorker(server, 'team-worker', 10));
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1366, height: 768 });
    await signIn(page, server.url, 'alice');
    alice = await server.login('alice');
  });

  afterAll(async () => {
    await browser?.close();
    worker?.close();
    await server?.close();
  });

  it("keeps alice's draft when bob answers the question first, and says who answered what", async () => {
    const project = await createProject(server, alice, 'Team answers');
    bob = await addMember(server, alice, project, 'bob');
    const run = await startRun(server, worker, alice, project, 'Build a shop');
    await run.store(planUpdate('executing', 1, ['done', 'running', 'pending']));
    await run.status('waiting_user', { question: 'Which currency should prices use?' });
    await openRun(page, runUrl(server, project, run.id));
    await page.getByRole('heading', { name: 'The agent asks' }).waitFor();
    expect(await shownSteps(page)).toEqual(['done', 'waiting', 'pending']);

    const box = page.getByRole('textbox', { name: 'Your answer' });
    await box.fill('Euro, with two dec');
    await box.press('End');
    // bob answers while alice is still typing
    const answered = await server.request(`/svc/api/workflows/${run.id}/answer`, {
      as: bob,
      json: { answer: 'US dollars' },
    });
    expect(answered.status).toBe(200);
    expect((await worker.dispatch(run.id, 'answer')).message).toBe('US dollars');
    await expectStatus(page, 'Running');

    const notice = page.getByTestId('answered-elsewhere');
    await notice.waitFor();
    await expectText(notice.locator('p').first(), /^bob answered this question at .+:$/);
    await expectText(notice.locator('blockquote'), 'US dollars');
    // the draft is still there, in the same box, with focus
    const draft = page.getByRole('textbox', { name: 'Your draft' });
    expect(await draft.inputValue()).toBe('Euro, with two dec');
    expect(await focused(page)).toMatch(/^textarea/);
    await page.keyboard.type('imals');
    expect(await draft.inputValue()).toBe('Euro, with two decimals');
    await auditPage(page, 'run-answered-elsewhere');

    // the draft can still be used: sent as feedback
    await page.getByRole('button', { name: 'Send as feedback' }).click();
    expect((await worker.dispatch(run.id, 'feedback')).message).toBe('Euro, with two decimals');
    await notice.waitFor({ state: 'detached' });
    expect(await focused(page)).not.toBe('body');
  });

  it("shows bob's feedback with a marker where it revised the plan, and the activity with actors and times", async () => {
    const project = await createProject(server, alice, 'Team feedback');
    bob = await addMember(server, alice, project, 'bob');
    const run = await startRun(server, worker, alice, project, 'Build a shop');
    await run.store(planUpdate('completed', null, ['done', 'done', 'done']));
    await run.status('completed');
    await openRun(page, runUrl(server, project, run.id));
    await expectStatus(page, 'Completed');

    const sent = await server.request(`/svc/api/workflows/${run.id}/feedback`, {
      as: bob,
      json: { message: 'Add a wish list\nbelow the cart' },
    });
    expect(sent.status).toBe(200);
    expect((await worker.dispatch(run.id, 'feedback')).message).toBe('Add a wish list\nbelow the cart');
    await run.status('running');
    // the old plan is all done, the new one has not arrived: the page must not say "Running · 3 of 3 done"
    await expectText(page.getByTestId('run-progress'), 'Revising the plan after feedback');
    await eventually(async () => expect(await page.getByTestId('run-progress').innerText()).not.toMatch(/3 of 3/));

    const revised = [
      ...['Scaffold the shop', 'Build the cart', 'Add payments'].map((title) => ({ title, description: '' })),
      { title: 'Add a wish list', description: 'below the cart' },
    ];
    await run.store(planUpdate('executing', 3, ['done', 'done', 'done', 'running'], revised));
    await expectText(page.getByTestId('run-progress'), 'Running step 4 of 4: Add a wish list');
    expect(await shownSteps(page)).toEqual(['done', 'done', 'done', 'running']);

    const marker = page.getByTestId('revision-marker');
    await expectText(marker.locator('p'), /^Plan revision 1 after feedback from bob at .+:$/);
    await expectText(marker.locator('blockquote'), 'Add a wish list\nbelow the cart');
    const activity = page.getByRole('region', { name: 'Activity' });
    await expectText(activity.locator('li[data-action="created"]'), /alice started the run$/);
    await expectText(activity.locator('li[data-action="feedback"]'), /bob sent feedback \(plan revision 1\):/);
    expect(await activity.locator('li[data-action="feedback"] blockquote').innerText()).toBe(
      'Add a wish list\nbelow the cart',
    );
    expect(await activity.locator('li[data-action="feedback"] time').innerText()).toMatch(/\d{1,2}:\d{2}:\d{2}/);
    // after a reload the actions come from the stored events
    await page.reload();
    await expectText(activity.locator('li[data-action="feedback"]'), /bob sent feedback \(plan revision 1\):/);
    await expectText(marker.locator('p'), /^Plan revision 1 after feedback from bob/);
    await auditPage(page, 'run-revised');
    await run.status('completed');
  });
});
