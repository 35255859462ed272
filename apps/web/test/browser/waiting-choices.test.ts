import { auditPage, VIEWPORTS } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { expectJson } from '../support/server';
import { startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';

jest.setTimeout(120_000);

/** Decision 0079: the header's list of waiting runs shows a question's choices as buttons that answer it. */
describeInChromium('choices in the waiting list in Chromium', () => {
  let run: RunFixture;
  let asked = 0;

  beforeAll(async () => {
    run = await startRunFixture('wanda');
    await run.store({ kind: 'status', data: { status: 'running' } });
    await run.store(threeStepPlan(1, ['done', 'running', 'pending']));
  });
  afterAll(async () => run?.close());

  it.each(Object.entries(VIEWPORTS))('answers from the waiting list with a choice at %s size', async (_name, size) => {
    await run.page.setViewportSize(size);
    asked++;
    await run.store({
      kind: 'status',
      data: {
        status: 'waiting_user',
        question: `Ship the cart today? (${asked})`,
        choices: ['ship', 'wait'],
        default: 'wait',
        timeout_seconds: 3600,
      },
    });
    // the project's run list, so the only answer buttons are the waiting list's
    await run.page.goto(`${run.server.url}/projects/${run.projectId}`);
    const count = run.page.getByTestId('waiting-count');
    await run.page.locator('[data-testid="waiting-count"][data-count="1"]').waitFor();
    await count.click();
    const panel = run.page.getByRole('region', { name: 'Runs waiting for your answer' });
    await panel.getByText(`Ship the cart today? (${asked})`).waitFor();
    const choices = panel.getByRole('group', { name: 'Answer run #1' });
    expect(await choices.getByRole('button').allTextContents()).toEqual(['ship', 'wait']);
    await expectText(panel.locator('.question-deadline'), /^Answers “wait” automatically at \d/);
    await auditPage(run.page, 'waiting-choices');
    await run.page.setViewportSize(size);

    await choices.getByRole('button', { name: 'ship' }).focus();
    await run.page.keyboard.press('Enter');
    await panel.getByText('No run is waiting for you.').waitFor();
    const workflow = await expectJson<{ status: string }>(
      await run.server.request(`/svc/api/workflows/${run.workflowId}`, { as: run.cookie }),
      200,
    );
    expect(workflow.status).toBe('running');
    expect(await run.worker.dispatch(run.workflowId, 'answer')).toMatchObject({ message: 'ship' });
    await run.store({ kind: 'status', data: { status: 'running' } });
  });
});
