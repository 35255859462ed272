import { eventually } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { expectJson } from '../support/server';
import { CART_PATCH, logUpdate, startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';

jest.setTimeout(90_000);

const ESC = '\u001b';
const FIRST = `${ESC}[32mPASS${ESC}[0m cart.test.ts\n`;
const SECOND = 'Tests: 12 passed\n';

/** CONTRACT-V2 in the page: live command output, durations, revision markers, LLM call detail, step diffs. */
describeInChromium('live command output, revisions, LLM detail and step diffs in Chromium', () => {
  let run: RunFixture;
  const region = () => run.page.getByRole('region', { name: 'Execution log' });
  const commandOutput = (event: Record<string, unknown>) =>
    run.worker.send({ type: 'command_output', workflow_id: run.workflowId, call_id: 'call-1', ...event });

  beforeAll(async () => {
    run = await startRunFixture('dave');
    await run.store(threeStepPlan(1, ['done', 'running', 'pending']));
    await run.store(
      logUpdate(0, 'execute_on_worker', { command: 'npm ci' }, 'added 12 packages', { duration_ms: 1500 }),
    );
    await run.open();
    await region().locator('.log-entry').first().waitFor();
  });

  afterAll(async () => {
    await run?.close();
  });

  it('shows a command the moment it starts, and its output as it streams in, in offset order, once', async () => {
    commandOutput({ event: 'started', step_index: 1, command: 'npm test', started_at: new Date().toISOString() });
    const running = region().locator('.log-running');
    await expectText(running.locator('.log-command'), '$ npm test');
    expect(await running.locator('.badge').innerText()).toMatch(/^running/);
    expect(await running.evaluate((el) => el.closest('[data-step]')?.getAttribute('data-step'))).toBe('1');

    // the second chunk first, then the first one twice: the page orders by offset and drops the repeat
    const firstBytes = Buffer.byteLength(FIRST);
    commandOutput({ event: 'output', stream: 'stdout', offset: firstBytes, chunk: SECOND });
    commandOutput({ event: 'output', stream: 'stdout', offset: 0, chunk: FIRST });
    commandOutput({ event: 'output', stream: 'stdout', offset: 0, chunk: FIRST });
    await expectText(running.locator('.log-output'), 'PASS cart.test.ts\nTests: 12 passed\n');
    expect(await running.locator('.log-output .ansi-fg-2').innerText()).toBe('PASS');
    await auditPage(run.page, 'workflow-log-live');

    commandOutput({ event: 'finished', exit_code: 0, duration_ms: 1234 });
    await expectText(running.locator('.badge'), 'exit 0');
  });

  it('replaces the live command by its stored entry when that arrives, with the measured duration', async () => {
    await run.store(logUpdate(1, 'execute_on_worker', { command: 'npm test' }, FIRST + SECOND, { duration_ms: 1234 }));
    await region().locator('.log-running').waitFor({ state: 'detached' });
    const stored = region().locator('.log-entry', { hasText: '$ npm test' });
    expect(await stored.count()).toBe(1);
    expect(await stored.getAttribute('data-seq')).not.toBeNull();
    expect(await stored.locator('.log-head').innerText()).toContain('1.23 s');
    expect(await region().locator('.log-entry', { hasText: 'npm ci' }).locator('.log-head').innerText()).toContain(
      '1.50 s',
    );
  });

  it('marks where feedback revised the plan', async () => {
    await run.store({ kind: 'status', data: { status: 'completed' } });
    await expectJson(
      await run.server.request(`/svc/api/workflows/${run.workflowId}/feedback`, {
        as: run.cookie,
        json: { message: 'Add a wish list' },
      }),
      200,
    );
    await run.worker.dispatch(run.workflowId, 'feedback');
    await run.store(logUpdate(2, 'write_file', { path: 'shop/wishlist.ts' }, 'written'));
    const revised = region().locator('[data-revision="1"]');
    await expectText(revised.locator('.log-revision-marker'), 'Plan revised (revision 1)');
    expect(await revised.locator('.log-entry .tool-name').allInnerTexts()).toEqual(['write_file']);
    expect(await region().locator('[data-revision="0"] .log-entry').count()).toBe(2);
    await auditPage(run.page, 'workflow-log-revised');
  });

  it('opens an LLM call to the messages sent and the reply', async () => {
    await run.store({
      kind: 'llm_call',
      data: {
        phase: 'executing',
        model: 'scripted-llm',
        prompt_tokens: 900,
        completion_tokens: 40,
        latency_ms: 700,
        step_index: 1,
        detail: {
          messages: [
            { role: 'system', content: 'You are the executor of a plan.' },
            { role: 'user', content: 'Run the tests of the cart.' },
          ],
          reply: {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'tc-1',
                type: 'function',
                function: { name: 'execute_on_worker', arguments: '{"command":"npm test"}' },
              },
            ],
          },
          truncated: false,
        },
      },
    });
    await run.page.getByRole('tab', { name: 'LLM calls' }).click();
    await run.page.getByRole('button', { name: /^Show messages/ }).click();
    const detail = run.page.locator('.llm-detail');
    await expectText(detail.locator('.llm-role-system pre'), 'You are the executor of a plan.');
    expect(await detail.locator('.llm-role-user pre').innerText()).toBe('Run the tests of the cart.');
    const reply = detail.locator('.llm-role-assistant');
    expect(await reply.locator('.llm-tool-call code').innerText()).toBe('execute_on_worker');
    expect(await reply.locator('.llm-tool-call pre').innerText()).toBe('{\n  "command": "npm test"\n}');
    await auditPage(run.page, 'workflow-llm-detail');
  });

  it('shows the diff each step made, files with their counts and the patch coloured', async () => {
    await run.store({
      kind: 'step_diff',
      data: {
        step_index: 1,
        files: [{ path: 'shop/cart.ts', status: 'modified', additions: 1, deletions: 1, binary: false }],
        patch: CART_PATCH,
        truncated: false,
      },
    });
    await run.page.getByRole('tab', { name: 'Files' }).click();
    await run.page.getByRole('button', { name: 'Changes by step' }).click();
    const step = run.page.locator('.step-diff[data-step="1"]');
    await expectText(step.locator('h3'), 'Step 2 (revision 1)'); // made after the feedback above
    const file = step.locator('[data-path="shop/cart.ts"]');
    expect(await file.locator('summary').innerText()).toBe('M shop/cart.ts +1 −1');
    expect((await file.locator('.diff-add').innerText()).trimEnd()).toBe('+export const total = items.length;');
    expect((await file.locator('.diff-del').innerText()).trimEnd()).toBe('-export const total = 0;');
    await eventually(async () =>
      expect(await file.locator('.diff-add').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
        'rgb(218, 251, 225)',
      ),
    );
    await auditPage(run.page, 'workflow-files-diffs');
  });
});
