import { auditPage, VIEWPORTS } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { expectJson } from '../support/server';
import { startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';

jest.setTimeout(120_000);

/** Issue 29: a question with choices is answered with a button; its default and deadline are shown. */
describeInChromium('a question with choices in Chromium', () => {
  let run: RunFixture;
  let asked = 0;

  /** The worker asks the next question with the choices yes/no, answered 'no' by itself in an hour. */
  const ask = async () => {
    asked++;
    await run.store({
      kind: 'status',
      data: {
        status: 'waiting_user',
        question: `Deploy the shop now? (${asked})`,
        choices: ['yes', 'no'],
        default: 'no',
        timeout_seconds: 3600,
      },
    });
  };

  beforeAll(async () => {
    run = await startRunFixture('quinn');
    await run.store({ kind: 'status', data: { status: 'running' } });
    await run.store(threeStepPlan(1, ['done', 'running', 'pending']));
  });
  afterAll(async () => run?.close());

  it.each(Object.entries(VIEWPORTS))('answers with a choice button at %s size, by keyboard', async (_name, size) => {
    await run.page.setViewportSize(size);
    await ask();
    await run.open();
    const box = run.page.locator('[data-question-open="true"]');
    await expectText(box.locator('.question'), `Deploy the shop now? (${asked})`);
    const choices = box.getByRole('group', { name: 'The agent asks' });
    await expectText(box.locator('.question-deadline'), /^Answers “no” automatically at \d/);
    // no free text for a question that takes one of its choices
    expect(await box.getByRole('textbox').count()).toBe(0);
    await auditPage(run.page, 'question-choices');
    await run.page.setViewportSize(size);

    const yes = choices.getByRole('button', { name: 'yes' });
    await yes.focus();
    await run.page.keyboard.press('Enter');
    await box.waitFor({ state: 'detached' });
    const workflow = await expectJson<{ status: string; question_choices: unknown }>(
      await run.server.request(`/svc/api/workflows/${run.workflowId}`, { as: run.cookie }),
      200,
    );
    expect(workflow).toMatchObject({ status: 'running', question_choices: null });
    expect(await run.worker.dispatch(run.workflowId, 'answer')).toMatchObject({ message: 'yes' });
    await run.store({ kind: 'status', data: { status: 'running' } });
  });
});
