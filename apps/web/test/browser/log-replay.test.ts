import type { Locator } from 'playwright-core';
import { eventually } from '@svc/test-kit';
import { auditPage, VIEWPORTS, type ViewportName } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { logUpdate, startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';

jest.setTimeout(240_000);

const VIEWPORT_NAMES = Object.keys(VIEWPORTS) as ViewportName[];
const BUILD = Array.from({ length: 100 }, (_, i) => (i === 6 ? 'build line 7: needle here' : `build line ${i + 1}`));

/** Whether the element is on screen: inside the window and inside the log's scrolled region. */
const onScreen = (locator: Locator) =>
  locator.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const region = el.closest('.log-scroll')!.getBoundingClientRect();
    const top = Math.max(0, region.top);
    const bottom = Math.min(window.innerHeight, region.bottom);
    return box.bottom > top && box.top < bottom;
  });

/** Issue 29: replay of a running command's output, search that marks and opens, line permalinks and times. */
describeInChromium('log replay, search marks and line permalinks in Chromium', () => {
  let run: RunFixture;
  let buildSeq: number;
  const region = () => run.page.getByRole('region', { name: 'Execution log' });
  const build = () => region().locator(`.log-entry[data-seq="${buildSeq}"]`);

  beforeAll(async () => {
    run = await startRunFixture('erin');
    await run.store(threeStepPlan(1, ['done', 'running', 'pending']));
    await run.store(logUpdate(0, 'execute_on_worker', { command: 'npm run build' }, BUILD.join('\n')));
    await run.open();
    const entry = region().locator('.log-entry', { hasText: 'npm run build' });
    buildSeq = Number(await entry.getAttribute('data-seq'));
  });

  afterAll(async () => {
    await run?.close();
  });

  it.each(VIEWPORT_NAMES)(
    'a page opened mid-command shows its output so far under its step, with its command line (%s)',
    async (viewport) => {
      await run.page.setViewportSize(VIEWPORTS[viewport]);
      const callId = `call-${viewport}`;
      const send = (event: Record<string, unknown>) =>
        run.worker.send({ type: 'command_output', workflow_id: run.workflowId, call_id: callId, ...event });
      send({ event: 'started', step_index: 1, command: 'npm test', started_at: new Date().toISOString() });
      send({
        event: 'output',
        stream: 'stdout',
        offset: 0,
        chunk: 'PASS cart.test.ts\n',
        at: new Date().toISOString(),
      });
      const running = () => region().locator(`.log-running[data-call-id="${callId}"]`);
      // The page shows it: the server has it. Now the reader reloads, mid-command.
      await expectText(running().locator('.log-output'), 'PASS cart.test.ts\n');
      await run.page.reload();
      await run.page.locator('[data-following="true"]').waitFor();

      await expectText(running().locator('.log-output'), 'PASS cart.test.ts\n');
      expect(await running().locator('.log-command').innerText()).toBe('$ npm test');
      expect(await running().evaluate((el) => el.closest('[data-step]')?.getAttribute('data-step'))).toBe('1');
      // Away to another tab and back: the log, mounted again, still has the output so far.
      await run.page.getByRole('tab', { name: 'LLM calls' }).click();
      await region().waitFor({ state: 'detached' });
      await run.page.getByRole('tab', { name: 'Execution log' }).click();
      await expectText(running().locator('.log-output'), 'PASS cart.test.ts\n');
      expect(await running().locator('.log-command').innerText()).toBe('$ npm test');
      // What follows is appended after the replayed output, once.
      send({
        event: 'output',
        stream: 'stdout',
        offset: 18,
        chunk: 'Tests: 12 passed\n',
        at: new Date().toISOString(),
      });
      await expectText(running().locator('.log-output'), 'PASS cart.test.ts\nTests: 12 passed\n');

      // Timestamps: each live line shows when it was sent.
      const timestamps = run.page.getByRole('button', { name: 'Timestamps' });
      await timestamps.click();
      expect(await timestamps.getAttribute('aria-pressed')).toBe('true');
      const times = running().locator('.log-line-time');
      await eventually(async () => expect(await times.count()).toBe(2));
      expect(await times.first().isVisible()).toBe(true);
      expect(await times.first().getAttribute('data-clock')).toMatch(/\d{1,2}:\d{2}:\d{2}/);
      await auditPage(run.page, `workflow-log-replayed-${viewport}`);
      await timestamps.click();

      send({ event: 'finished', exit_code: 0, duration_ms: 10 });
      await run.store(
        logUpdate(1, 'execute_on_worker', { command: 'npm test' }, 'PASS cart.test.ts\nTests: 12 passed\n'),
      );
      await running().waitFor({ state: 'detached' });
    },
  );

  it.each(VIEWPORT_NAMES)(
    'search marks its matches and opens the collapsed lines holding one (%s)',
    async (viewport) => {
      await run.page.setViewportSize(VIEWPORTS[viewport]);
      const toggle = build().getByRole('button', { name: 'Show 60 earlier lines' });
      await toggle.waitFor();
      const search = run.page.getByRole('searchbox', { name: 'Search the log' });
      await search.fill('NEEDLE');
      await expectText(build().locator('.log-output mark'), 'needle');
      await toggle.waitFor({ state: 'detached' });
      expect(await build().locator(`#log-${buildSeq}-L7`).innerText()).toBe('build line 7: needle here\n');
      await auditPage(run.page, `workflow-log-search-${viewport}`);
      await search.fill('');
      await toggle.waitFor();
      expect(await build().locator('mark').count()).toBe(0);
    },
  );

  it.each(VIEWPORT_NAMES)(
    'a line permalink selects its line and scrolls to it, also when collapsed (%s)',
    async (viewport) => {
      await run.page.setViewportSize(VIEWPORTS[viewport]);
      const url = `${run.server.url}/projects/${run.projectId}/workflows/${run.workflowId}#log-${buildSeq}-L5`;
      await run.page.goto(url);
      const line = run.page.locator(`#log-${buildSeq}-L5`);
      await line.waitFor();
      expect(await line.getAttribute('class')).toContain('log-line-selected');
      expect(await line.innerText()).toBe('build line 5\n');
      await eventually(async () => expect(await onScreen(line)).toBe(true));

      // From the keyboard: a line number is a link; Enter on it selects that line instead.
      const number = build().getByRole('link', { name: 'Line 90' });
      await number.focus();
      await run.page.keyboard.press('Enter');
      await eventually(() => expect(new URL(run.page.url()).hash).toBe(`#log-${buildSeq}-L90`));
      const ninety = run.page.locator(`#log-${buildSeq}-L90`);
      await eventually(async () => expect(await ninety.getAttribute('class')).toContain('log-line-selected'));
      expect(await region().locator('.log-line-selected').count()).toBe(1);
      await eventually(async () => expect(await onScreen(ninety)).toBe(true));
      await auditPage(run.page, `workflow-log-permalink-${viewport}`);
    },
  );
});
