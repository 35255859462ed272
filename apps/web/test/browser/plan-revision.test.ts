import { eventually } from '@svc/test-kit';
import type { UpdateBody } from '@svc/protocol';
import { auditPage } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { expectJson } from '../support/server';
import { startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';
import { shownSteps } from './run-support';

jest.setTimeout(120_000);

const SCAFFOLD = { title: 'Scaffold the shop', description: 'Vite app in ./shop' };
const CART = { title: 'Build the cart', description: 'Add, remove, total' };
const WISH_LIST = { title: 'Add a wish list', description: 'Below the cart' };

/** The revised plan: a wish list before the cart, which runs again; payments are dropped. */
const revisedPlan: UpdateBody = {
  kind: 'snapshot',
  data: {
    phase: 'executing',
    current_step: 1,
    memo: [],
    steps: [
      { ...SCAFFOLD, status: 'done' },
      { ...WISH_LIST, status: 'running' },
      { ...CART, status: 'pending' },
    ],
  },
};

/**
 * Issue 29, finding 4, decision 0076, in Chromium against the real server: while feedback is turned
 * into a revised plan the finished steps stay done with their times, and the revised plan marks what it
 * added, runs again and removed, also after a reload.
 */
describeInChromium('a revised plan on the run page in Chromium', () => {
  let run: RunFixture;
  const step = (i: number) => run.page.locator(`.timeline .plan-step[data-step-index="${i}"]`);
  const durations = () =>
    run.page
      .locator('.timeline .step-duration')
      .evaluateAll((els) => els.map((el) => el.getAttribute('data-duration') !== ''));

  beforeAll(async () => {
    run = await startRunFixture('rho');
    await run.store({ kind: 'status', data: { status: 'running' } });
    await run.store(threeStepPlan(0, ['running', 'pending', 'pending']));
    await run.store(threeStepPlan(1, ['done', 'running', 'pending']));
    await run.store(threeStepPlan(2, ['done', 'done', 'running']));
  });
  afterAll(async () => {
    await run?.page.emulateMedia({ colorScheme: null });
    await run?.close();
  });

  it('keeps the finished steps done and timed while the revised plan is awaited', async () => {
    await run.open();
    await eventually(async () => expect(await shownSteps(run.page)).toEqual(['done', 'done', 'running']));
    await expectJson(
      await run.server.request(`/svc/api/workflows/${run.workflowId}/feedback`, {
        as: run.cookie,
        json: { message: 'A wish list instead of payments' },
      }),
      200,
    );
    await run.worker.dispatch(run.workflowId, 'feedback');
    await run.store({ kind: 'status', data: { status: 'running' } });
    await expectText(run.page.getByTestId('run-progress'), 'Revising the plan after feedback');
    await eventually(async () => expect(await shownSteps(run.page)).toEqual(['done', 'done', 'pending']));
    await expectText(run.page.getByTestId('plan-count'), '2 of 3 done');
    expect(await durations()).toEqual([true, true, false]);
    await expectText(run.page.getByTestId('revision-marker').locator('p'), /^Revising the plan after feedback/);
    await auditPage(run.page, 'run-plan-revising');

    // the server's plan says the same after a reload
    await run.open();
    await eventually(async () => expect(await shownSteps(run.page)).toEqual(['done', 'done', 'pending']));
    await expectText(run.page.getByTestId('plan-count'), '2 of 3 done');
    expect(await durations()).toEqual([true, true, false]);
  });

  it('marks what the revised plan added, runs again and removed, also after a reload', async () => {
    await run.store(revisedPlan);
    for (const reload of [false, true]) {
      if (reload) await run.open();
      await eventually(async () => expect(await shownSteps(run.page)).toEqual(['done', 'running', 'pending']));
      await expectText(
        run.page.getByTestId('revision-summary'),
        'The revision kept 1 step, added 1, removed 1, runs 1 again.',
      );
      expect(await step(0).locator('[data-step-change]').count()).toBe(0);
      await expectText(step(1).locator('[data-step-change="added"]'), 'New');
      await expectText(step(2).locator('[data-step-change="rerun"]'), 'Runs again');
      await expectText(run.page.locator('[data-removed-step="2"]'), '3. Add payments');
      expect((await durations())[0]).toBe(true);
    }
    for (const scheme of ['light', 'dark'] as const) {
      await run.page.emulateMedia({ colorScheme: scheme });
      await auditPage(run.page, scheme === 'dark' ? 'run-plan-revised-dark' : 'run-plan-revised');
    }
  });
});
