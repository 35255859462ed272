import { auditPage } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';
import { expectJson } from '../support/server';

jest.setTimeout(120_000);

/** Issue 29 finding 4 (header states): a run waiting for a timer, and a run whose worker went offline. */
describeInChromium('what a stalled run waits for, in its header (Chromium)', () => {
  let run: RunFixture;
  const progress = () => run.page.getByTestId('run-progress');

  beforeAll(async () => {
    // a lease longer than any test: the offline worker keeps the run while the page shows it
    run = await startRunFixture('wanda', { WORKER_LEASE_SECONDS: '3600' });
    await run.store({ kind: 'status', data: { status: 'running' } });
    await run.store(threeStepPlan(1, ['done', 'running', 'pending']));
    await run.open();
  });

  afterAll(async () => {
    await run?.close();
  });

  it('says the worker is offline while it is, and no more once it is back', async () => {
    await expectText(progress(), 'Running step 2 of 3: Build the cart');
    run.worker.close();
    const offline = run.page.getByTestId('worker-offline');
    await expectText(offline, /^Worker wanda-worker is offline \(last seen .+\)\. The run goes on when it reconnects/);
    await expectText(progress(), 'Stalled: its worker is offline');
    await auditPage(run.page, 'run-worker-offline');

    await run.reconnectWorker();
    await offline.waitFor({ state: 'detached' });
    await expectText(progress(), 'Running step 2 of 3: Build the cart');
  });

  it("shows a timer's reason and fire time instead of waiting for a worker", async () => {
    const timer = await expectJson<{ fire_at: string }>(
      await run.server.request(`/svc/api/workflows/${run.workflowId}/timers`, {
        as: run.cookie,
        json: { seconds: 3600, reason: 'Wait for the DNS change to spread' },
      }),
      201,
    );
    await run.store({ kind: 'status', data: { status: 'pending' } });
    await expectText(progress(), 'Waiting for a timer');
    const note = run.page.getByTestId('run-timer');
    await expectText(note, /^Resumes at .+: Wait for the DNS change to spread$/);
    expect(await note.locator('time').getAttribute('datetime')).toBe(timer.fire_at);
    await auditPage(run.page, 'run-timer');
  });
});
