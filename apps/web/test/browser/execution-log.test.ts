import type { Locator } from 'playwright-core';
import { eventually } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { logUpdate, startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';

jest.setTimeout(90_000);

const ESC = '\u001b';

/** Pixels between the end of the scrolled content and the bottom of the region. */
const distanceFromEnd = (region: Locator) => region.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);

describeInChromium('execution log in Chromium against the real server', () => {
  let run: RunFixture;
  const region = () => run.page.getByRole('region', { name: 'Execution log' });
  const entries = () => region().locator('.log-entry');

  beforeAll(async () => {
    run = await startRunFixture('alice');
    await run.store(threeStepPlan(0, ['running', 'pending', 'pending']));
    await run.store(logUpdate(null, 'write_plan', { steps: 3 }, 'plan written'));
    await run.store(
      logUpdate(
        0,
        'execute_on_worker',
        { command: 'npm ci', timeout_seconds: 300 },
        `${ESC}[32madded 12 packages${ESC}[0m`,
      ),
    );
    await run.store(logUpdate(0, 'write_file', { path: 'shop/src/cart.ts', content: 'export {}' }, 'written'));
    await run.store(threeStepPlan(1, ['done', 'running', 'pending']));
    await run.store(
      logUpdate(
        1,
        'execute_on_worker',
        { command: 'echo "total: $((1+1))" && npm test' },
        `${ESC}[1;31mFAIL${ESC}[0m cart.test.ts\n  expected 2, got 3\n`,
        { is_error: true },
      ),
    );
    const build = Array.from({ length: 100 }, (_, i) => `build line ${i + 1}`).join('\n');
    await run.store(logUpdate(1, 'execute_on_worker', { command: 'npm run build' }, build));
    await run.open();
  });

  afterAll(async () => {
    await run?.close();
  });

  it('groups entries by step under the plan step titles, in time order', async () => {
    // the step titles come with the plan, which may load after the log
    await eventually(async () =>
      expect(await region().locator('.log-step-head h3').allInnerTexts()).toEqual([
        'Planning and outside steps',
        'Step 1 · Scaffold the shop',
        'Step 2 · Build the cart',
      ]),
    );
    expect(await region().locator('[data-step="0"] .log-entry .tool-name').allInnerTexts()).toEqual([
      'execute_on_worker',
      'write_file',
    ]);
  });

  it('shows a command as the shell line it is, not as YAML, and other input as YAML', async () => {
    const failing = entries().filter({ hasText: 'npm test' });
    expect(await failing.locator('.log-command').innerText()).toBe('$ echo "total: $((1+1))" && npm test');
    expect(await failing.locator('.log-input').getAttribute('open')).toBeNull();
    const write = entries().filter({ has: run.page.locator('.tool-name', { hasText: 'write_file' }) });
    expect(await write.locator('.log-input pre').innerText()).toBe('path: shop/src/cart.ts\ncontent: export {}\n');
  });

  it('renders output like a CI log: terminal colours as styles, no escape codes, errors marked', async () => {
    const install = entries().filter({ hasText: 'npm ci' });
    expect(await install.locator('.log-output').innerText()).toBe('added 12 packages');
    expect(await install.locator('.log-output .ansi-fg-2').innerText()).toBe('added 12 packages');
    const failing = entries().filter({ hasText: 'npm test' });
    expect(await failing.getAttribute('class')).toContain('log-error');
    expect(await failing.locator('.badge-failed').innerText()).toBe('error');
    expect(await failing.locator('.ansi-fg-1.ansi-bold').innerText()).toBe('FAIL');
    expect(
      await failing.locator('.log-output').evaluate((el) => getComputedStyle(el).fontFamily.includes('monospace')),
    ).toBe(true);
  });

  it('collapses long output to its last lines, with the rest one click away', async () => {
    const build = entries().filter({ hasText: 'npm run build' });
    const output = build.locator('.log-output');
    expect((await output.innerText()).split('\n')).toEqual(
      Array.from({ length: 40 }, (_, i) => `build line ${i + 61}`),
    );
    await build.getByRole('button', { name: 'Show 60 earlier lines' }).click();
    expect((await output.innerText()).split('\n')).toHaveLength(100);
    await build.getByRole('button', { name: 'Show only the end' }).click();
    expect((await output.innerText()).split('\n')).toHaveLength(40);
  });

  it('gives times to the second with the full date as a tooltip', async () => {
    const time = entries().first().locator('time');
    expect(await time.innerText()).toMatch(/\d{1,2}:\d{2}:\d{2}/);
    const iso = (await time.getAttribute('datetime'))!;
    expect(Number.isNaN(Date.parse(iso))).toBe(false);
  });

  it('searches and filters: text, errors only, by tool, by step', async () => {
    const search = run.page.getByRole('searchbox', { name: 'Search the log' });
    await search.fill('CART.TEST');
    await expectText(run.page.locator('.log-count'), '1 of 5 entries');
    expect(await entries().locator('.log-command').innerText()).toContain('npm test');
    await search.fill('no such text anywhere');
    await expectText(run.page.locator('.log .empty'), 'No entry matches the filters.');
    await search.fill('');

    await run.page.getByRole('checkbox', { name: 'Errors only' }).check();
    await expectText(run.page.locator('.log-count'), '1 of 5 entries');
    await run.page.getByRole('checkbox', { name: 'Errors only' }).uncheck();

    await run.page.getByRole('combobox', { name: 'Tool' }).selectOption('write_file');
    await expectText(run.page.locator('.log-count'), '1 of 5 entries');
    expect(await entries().locator('.tool-name').allInnerTexts()).toEqual(['write_file']);
    await run.page.getByRole('combobox', { name: 'Tool' }).selectOption('');

    await region().locator('[data-step="0"]').getByRole('button', { name: 'Only this step' }).click();
    await expectText(run.page.locator('.log-count'), '2 of 5 entries');
    await auditPage(run.page, 'workflow-log-filtered');
    await run.page.getByRole('button', { name: 'Show all steps' }).click();
    await expectText(run.page.locator('.log-count'), '5 entries');
  });

  it('follows new entries while Follow is on, stops when the reader scrolls up, and resumes on request', async () => {
    const follow = run.page.getByRole('button', { name: 'Follow' });
    // the clicks above scrolled entries into view, as a reader would: that may have turned it off
    if ((await follow.getAttribute('aria-pressed')) === 'false') await follow.click();
    expect(await follow.getAttribute('aria-pressed')).toBe('true');
    const many = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n');
    for (let i = 0; i < 12; i++) await run.store(logUpdate(1, 'execute_on_worker', { command: `step-${i}` }, many));
    await expectText(run.page.locator('.log-count'), '17 entries');
    expect(await region().evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    await eventually(async () => expect(await distanceFromEnd(region())).toBeLessThan(24));

    await region().evaluate((el) => el.scrollTo({ top: 0 }));
    await eventually(async () => expect(await follow.getAttribute('aria-pressed')).toBe('false'));
    await run.store(logUpdate(1, 'execute_on_worker', { command: 'after-scroll' }, many));
    await expectText(run.page.locator('.log-count'), '18 entries');
    expect(await region().evaluate((el) => el.scrollTop)).toBe(0);

    await follow.click();
    expect(await follow.getAttribute('aria-pressed')).toBe('true');
    await eventually(async () => expect(await distanceFromEnd(region())).toBeLessThan(24));
    await run.store(logUpdate(2, 'execute_on_worker', { command: 'newest' }, many));
    await entries().filter({ hasText: '$ newest' }).waitFor();
    await eventually(async () => expect(await distanceFromEnd(region())).toBeLessThan(24));
  });

  it('is keyboard-reachable and passes the page audit at both sizes', async () => {
    await region().focus();
    expect(await region().evaluate((el) => el === document.activeElement)).toBe(true);
    await auditPage(run.page, 'workflow-log');
  });
});
