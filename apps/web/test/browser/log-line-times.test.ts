import { eventually } from '@svc/test-kit';
import { auditPage, VIEWPORTS, type ViewportName } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { logUpdate, startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';

jest.setTimeout(240_000);

const VIEWPORT_NAMES = Object.keys(VIEWPORTS) as ViewportName[];
const STARTED = '2026-11-28T09:15:00.000Z';
const FIRST = '2026-11-28T09:15:02.000Z';
const SECOND = '2026-11-28T09:15:07.250Z';
const OUTPUT = 'compiling\nlinking\ndone\n';

/** Decision 0080: a command's line times stay after the page is reloaded once the command is stored. */
describeInChromium('per-line times of stored output in Chromium', () => {
  let run: RunFixture;
  const region = () => run.page.getByRole('region', { name: 'Execution log' });
  const lineTimes = (scope: ReturnType<typeof region>) =>
    scope
      .locator('.log-line')
      .evaluateAll((lines) => lines.map((line) => line.querySelector('time')?.getAttribute('datetime') ?? null));

  beforeAll(async () => {
    run = await startRunFixture('lina');
    await run.store(threeStepPlan(1, ['done', 'running', 'pending']));
    await run.open();
  });

  afterAll(async () => {
    await run?.close();
  });

  it.each(VIEWPORT_NAMES)('shows the same line times live and after a reload (%s)', async (viewport) => {
    await run.page.setViewportSize(VIEWPORTS[viewport]);
    const command = `make all-${viewport}`;
    const callId = `call-${viewport}`;
    const send = (event: Record<string, unknown>) =>
      run.worker.send({ type: 'command_output', workflow_id: run.workflowId, call_id: callId, ...event });
    send({ event: 'started', step_index: 1, command, started_at: STARTED });
    send({ event: 'output', stream: 'stdout', offset: 0, chunk: 'compiling\nlink', at: FIRST });
    send({ event: 'output', stream: 'stdout', offset: 14, chunk: 'ing\ndone\n', at: SECOND });
    const running = region().locator(`.log-running[data-call-id="${callId}"]`);
    await expectText(running.locator('.log-output'), OUTPUT);
    await eventually(async () => expect(await lineTimes(running)).toEqual([FIRST, FIRST, SECOND]));

    // The worker stores the entry with the times of its lines (status line untimed).
    send({ event: 'finished', exit_code: 0, duration_ms: 7_250 });
    await run.store(
      logUpdate(1, 'execute_on_worker', { command }, `[exit code 0]\n${OUTPUT}`, {
        duration_ms: 7_250,
        output_line_times: {
          started_at: STARTED,
          lines: [
            [0, null],
            [1, 2_000],
            [3, 7_250],
          ],
        },
      }),
    );
    await running.waitFor({ state: 'detached' });
    await run.page.reload();
    const stored = region().locator('.log-entry', { hasText: command });
    await expectText(stored.locator('.log-output'), `[exit code 0]\n${OUTPUT}`);
    expect(await lineTimes(stored)).toEqual([null, FIRST, FIRST, SECOND]);

    // Shown with the Timestamps switch, beside the line permalinks.
    const timestamps = run.page.getByRole('button', { name: 'Timestamps' });
    await timestamps.click();
    const seq = await stored.getAttribute('data-seq');
    const second = stored.locator(`#log-${seq}-L2`);
    expect(await second.locator('time').isVisible()).toBe(true);
    expect(await second.locator('time').getAttribute('data-clock')).toMatch(/\d{1,2}:\d{2}:\d{2}/);
    expect(await second.getByRole('link', { name: 'Line 2' }).count()).toBe(1);
    await auditPage(run.page, `workflow-log-line-times-${viewport}`);
    await timestamps.click();
  });
});
