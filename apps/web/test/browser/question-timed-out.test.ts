import { MIN_QUESTION_TIMEOUT_SECONDS, type Workflow } from '@svc/protocol';
import { auditPage, VIEWPORTS } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { expectJson } from '../support/server';
import { startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';

jest.setTimeout(120_000);

/**
 * Decision 0079: a question whose deadline passes is answered with its default, and the run's log gets a
 * `question_timeout` entry. The run page shows it in words, live and after a reload, at both sizes.
 */
describeInChromium('a question its deadline answered, in the run page log (Chromium)', () => {
  let run: RunFixture;
  const region = () => run.page.getByRole('region', { name: 'Execution log' });
  const entry = () => region().locator('.log-entry[data-tool="question_timeout"]');

  beforeAll(async () => {
    run = await startRunFixture('tara');
    await run.store({ kind: 'status', data: { status: 'running' } });
    await run.store(threeStepPlan(1, ['done', 'running', 'pending']));
  });
  afterAll(async () => run?.close());

  /** The entry shows the question, its choices and the default it was given, on screen and not cut off. */
  async function expectShown(deadline: string, viewport: keyof typeof VIEWPORTS) {
    await run.page.setViewportSize(VIEWPORTS[viewport]);
    const shown = entry();
    await shown.scrollIntoViewIfNeeded();
    expect(await shown.isVisible()).toBe(true);
    await expectText(shown.locator('.log-server-title'), 'Question timed out');
    await expectText(
      shown.getByTestId('question-timeout-text'),
      /^No answer came by \d{1,2}:\d{2}:\d{2}.*, so the question was answered with its default “no”\.$/,
    );
    expect(await shown.getByTestId('question-timeout-text').locator('time').getAttribute('datetime')).toBe(deadline);
    await expectText(shown.locator('.log-timeout-question'), 'Deploy the shop now?');
    await expectText(shown.getByText(/^Choices:/), 'Choices: “yes”, “no”');
    // the raw kind is not what the reader sees first
    expect(await shown.locator('.tool-name').count()).toBe(0);
    const box = (await shown.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(VIEWPORTS[viewport].width);
  }

  it('shows the question_timeout entry in the waiting step, live and after a reload, at desktop and phone sizes', async () => {
    await run.page.setViewportSize(VIEWPORTS.desktop);
    await run.open();
    // the server's timer answers with the default at the deadline: the worker hears it as an answer
    const answered = run.worker.dispatch(run.workflowId, 'answer', 60_000);
    await run.store({
      kind: 'status',
      data: {
        status: 'waiting_user',
        question: 'Deploy the shop now?',
        choices: ['yes', 'no'],
        default: 'no',
        timeout_seconds: MIN_QUESTION_TIMEOUT_SECONDS,
      },
    });
    const asked = await expectJson<Workflow>(
      await run.server.request(`/svc/api/workflows/${run.workflowId}`, { as: run.cookie }),
      200,
    );
    const deadline = asked.question_deadline!;
    await run.page.locator('[data-question-open="true"]').waitFor();
    expect(await answered).toMatchObject({ message: 'no' });

    // live: the entry arrives as a log_entry event on the open page, in step 2 (the step the run waited in)
    await entry().waitFor();
    expect(await region().locator('[data-step="1"] .log-entry[data-tool="question_timeout"]').count()).toBe(1);
    await expectText(run.page.locator('.log-count'), '1 entry');
    await expectShown(deadline, 'desktop');
    await expectShown(deadline, 'phone');
    await auditPage(run.page, 'run-question-timed-out');

    // read back from GET /log on a fresh page
    await run.open();
    await entry().waitFor();
    await expectShown(deadline, 'phone');
    await expectShown(deadline, 'desktop');
  });
});
