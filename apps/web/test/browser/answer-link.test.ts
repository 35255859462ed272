import type { Page } from 'playwright-core';
import type { NotificationPreferences, Workflow } from '@svc/protocol';
import { startSmtpServer, type SmtpServer } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { expectJson, startWebServer, startWorker, type TestServer, type TestWorker } from '../support/server';
import { createProject, planUpdate, ScriptedRun } from './run-support';

jest.setTimeout(90_000);

/** The single-use answer link a waiting-for-input mail carries (the token is 32 random bytes, base64url). */
const ANSWER_LINK = /https?:\/\/\S+\/svc\/answer\/[A-Za-z0-9_-]{43}/;

// Issue 25: a person whose e-mail preference is on for waiting_for_input gets a mail (through a real SMTP
// server) when a run asks a question; its link opens the API's answer page in a browser WITHOUT a session,
// answers once as that person (the worker is steered with the answer), and says so when opened again.
describeInChromium('the answer link of a waiting-for-input mail in Chromium (real server and SMTP server)', () => {
  let smtp: SmtpServer;
  let server: TestServer;
  let worker: TestWorker;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let cookie = '';

  beforeAll(async () => {
    smtp = await startSmtpServer();
    server = await startWebServer({ SMTP_URL: smtp.url });
    ({ worker } = await startWorker(server, 'answer-worker'));
    cookie = await server.login('quinn');
    const saved = await expectJson<NotificationPreferences>(
      await server.request('/svc/api/me/notifications', {
        method: 'PUT',
        as: cookie,
        json: { email: { enabled: true, address: 'quinn@mail.example.com', events: ['waiting_for_input'] } },
      }),
      200,
    );
    expect(saved.email).toMatchObject({ enabled: true, available: true, events: ['waiting_for_input'] });
    // a browser that never signed in: the link alone must answer
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await browser?.close();
    worker?.close();
    await server?.close();
    await smtp?.close();
  });

  it('answers the question once from the mailed link without a session; the link then says it was used', async () => {
    const projectId = await createProject(server, cookie, 'Shop');
    const created = await expectJson<Workflow>(
      await server.request(`/svc/api/projects/${projectId}/workflows`, {
        method: 'POST',
        as: cookie,
        json: { requirement: 'Build a shop with a cart' },
      }),
      201,
    );
    await worker.dispatch(created.id, 'start');
    const run = new ScriptedRun(created.id, worker);
    await run.status('running');
    // the agent asks during a step (its snapshot is what the answer resumes from)
    await run.store(planUpdate('executing', 0, ['running', 'pending', 'pending']));
    const question = 'Which currency should the cart show: euro or dollar?';
    await run.status('waiting_user', { question });

    const mail = await smtp.nextMail(
      (m) => m.to.includes('quinn@mail.example.com') && m.subject.includes('is waiting for your answer'),
    );
    expect(mail.text).toContain(question);
    const link = ANSWER_LINK.exec(mail.text)?.[0];
    if (!link) throw new Error(`no answer link in the mail:\n${mail.text}`);
    expect(new URL(link).origin).toBe(new URL(server.url).origin);

    const shown = await page.goto(link);
    expect(shown?.status()).toBe(200);
    expect(await browser.context.cookies(server.url)).toEqual([]);
    await page.getByRole('heading', { name: `Run #${created.number} is waiting for your answer` }).waitFor();
    expect(await page.locator('pre').innerText()).toBe(question);
    await auditPage(page, 'answer-link');
    await page.getByRole('textbox', { name: 'Your answer' }).fill('Euro, with the € sign');
    await page.getByRole('button', { name: 'Send the answer' }).click();
    await page.getByRole('heading', { name: 'Answer sent' }).waitFor();
    await page.getByText(`Your answer was sent to run #${created.number}.`).waitFor();
    await auditPage(page, 'answer-link-sent');

    // the run got it: the worker is steered with the answer, the run no longer waits, quinn answered
    const steered = await worker.dispatch(created.id, 'answer');
    expect(steered.message).toBe('Euro, with the € sign');
    const after = await expectJson<Workflow>(
      await server.request(`/svc/api/workflows/${created.id}`, { as: cookie }),
      200,
    );
    expect(after.status).not.toBe('waiting_user');
    expect(after.question).toBeNull();

    // the same link again: used, it answers nothing more
    const again = await page.goto(link);
    expect(again?.status()).toBe(410);
    await page.getByText('This answer link was used already: each link answers once.').waitFor();
    await auditPage(page, 'answer-link-used');
    expect(await page.getByRole('textbox', { name: 'Your answer' }).count()).toBe(0);
    expect(await browser.context.cookies(server.url)).toEqual([]);
  });
});
