import type { LlmCallUpdateData } from '@svc/protocol';
import { auditPage, expectNoHorizontalOverflow, VIEWPORTS } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';

jest.setTimeout(120_000);

const WRITE_FILE = {
  type: 'function',
  function: {
    name: 'write_file',
    description: 'Write a file in the workspace',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
};

/** An `llm_call` update of the scripted worker; `detail` adds messages, a reply and tools. */
const llmCall = (
  phase: LlmCallUpdateData['phase'],
  step: number | null,
  latencyMs: number,
  detail?: LlmCallUpdateData['detail'],
): LlmCallUpdateData => ({
  phase,
  model: 'scripted-model',
  prompt_tokens: 10_000,
  completion_tokens: 2_000,
  latency_ms: latencyMs,
  step_index: step,
  ...(detail ? { detail } : {}),
});

/**
 * The calls are stored one after the other, each with a shorter latency than the one before, so their
 * starts (log time less latency) come in the order stored.
 *
 * Issue 29, decision 0076, in Chromium against the real server: the run's LLM calls as a trace, on one
 * timeline grouped under planning and their steps, with tokens, latency and cost; a call opens to its
 * messages (tool calls with arguments, tool results) and the tools it offered.
 */
describeInChromium('the LLM trace of a run in Chromium', () => {
  let run: RunFixture;

  beforeAll(async () => {
    run = await startRunFixture('tia');
    await run.store({ kind: 'status', data: { status: 'running' } });
    await run.store(threeStepPlan(1, ['done', 'running', 'pending']));
    const root = await run.server.login('root');
    const prices = { 'scripted-model': { prompt_per_million: 3, completion_per_million: 15 } };
    const put = await run.server.request('/svc/api/settings/llm_prices', {
      method: 'PUT',
      as: root,
      json: { value: JSON.stringify(prices) },
    });
    expect(put.status).toBe(200);
    await run.store({ kind: 'llm_call', data: llmCall('planning', null, 1200) });
    await run.store({ kind: 'llm_call', data: llmCall('executing', 0, 800) });
    await run.store({
      kind: 'llm_call',
      data: llmCall('executing', 1, 100, {
        messages: [
          { role: 'system', content: 'You are the executor of a plan.' },
          { role: 'user', content: 'Build the cart.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call-7', type: 'function', function: { name: 'write_file', arguments: '{"path":"cart.ts"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call-7', content: 'wrote cart.ts (12 lines)' },
        ],
        reply: { role: 'assistant', content: 'The cart is built.' },
        truncated: false,
        tools: [WRITE_FILE],
      }),
    });
  });
  afterAll(async () => {
    await run?.page.emulateMedia({ colorScheme: null });
    await run?.close();
  });

  it('puts each call on the timeline under its step, with tokens, latency and cost', async () => {
    await run.open('?tab=trace');
    const group = (key: string) => run.page.locator(`.trace-group[data-trace-group="${key}"]`);
    await group('step-1').locator('.trace-call').waitFor();
    expect(
      await run.page.locator('.trace-group h3').evaluateAll((hs) => hs.map((h) => h.firstChild?.textContent)),
    ).toEqual(['Planning', 'Step 1', 'Step 2']);
    const call = group('step-1').locator('.trace-call');
    await expectText(call.locator('[data-fact="tokens"]'), '10,000 in / 2,000 out');
    await expectText(call.locator('[data-fact="latency"]'), '100 ms');
    // 10,000 prompt tokens at $3 and 2,000 completion tokens at $15 per million
    await expectText(call.locator('[data-fact="cost"]'), '$0.06');
    // each bar is sized by its call's latency: 1.2 s, 0.8 s, 0.1 s
    const widths = await run.page
      .locator('.trace-bar')
      .evaluateAll((bars) => bars.map((bar) => bar.getBoundingClientRect().width));
    expect(widths[0]).toBeGreaterThan(widths[1]!);
    expect(widths[1]).toBeGreaterThan(widths[2]!);

    // no overflow and no axe violation at 1366 and 390 px, light and dark
    for (const scheme of ['light', 'dark'] as const) {
      await run.page.emulateMedia({ colorScheme: scheme });
      await auditPage(run.page, scheme === 'dark' ? 'workflow-trace-dark' : 'workflow-trace');
    }
    await run.page.emulateMedia({ colorScheme: 'light' });
  });

  it('opens a call’s messages, tool calls, tool results and tools from the keyboard', async () => {
    for (const size of Object.values(VIEWPORTS)) {
      await run.page.setViewportSize(size);
      await run.open('?tab=trace');
      const call = run.page.locator('.trace-group[data-trace-group="step-1"] .trace-call');
      await call.focus();
      await run.page.keyboard.press('Enter');
      expect(await call.getAttribute('aria-pressed')).toBe('true');
      const detail = run.page.locator('#trace-detail');
      // a phone shows the messages under the timeline and goes there; a wide screen beside it, and stays
      const heading = detail.getByRole('heading', { level: 3 });
      await heading.waitFor();
      expect(await heading.evaluate((el) => el === document.activeElement)).toBe(size === VIEWPORTS.phone);
      await detail.getByRole('button', { name: 'Back to the call on the timeline' }).click();
      expect(await call.evaluate((el) => el === document.activeElement)).toBe(true);
      await expectText(detail.locator('.llm-role-system pre'), 'You are the executor of a plan.');
      await expectText(detail.locator('.llm-tool-call code'), 'write_file');
      expect(await detail.locator('.llm-tool-call pre').innerText()).toBe('{\n  "path": "cart.ts"\n}');
      await expectText(detail.locator('.llm-role-tool summary strong'), 'tool result · of write_file · for call-7');
      await expectText(detail.locator('.llm-role-tool pre'), 'wrote cart.ts (12 lines)');
      const tool = detail.locator('.llm-tool-definition');
      await expectText(tool.locator('summary'), 'write_file Write a file in the workspace');
      await tool.locator('summary').click();
      expect(JSON.parse(await tool.locator('pre').innerText())).toEqual(WRITE_FILE.function.parameters);
      await expectText(detail.locator('.llm-role-assistant').last().locator('pre'), 'The cart is built.');
      await expectNoHorizontalOverflow(run.page, `trace detail at ${size.width} px`);
    }
    await auditPage(run.page, 'workflow-trace-call');
    // a call whose messages were not sent says so
    const planning = run.page.locator('.trace-group[data-trace-group="planning"] .trace-call');
    await planning.click();
    await run.page.locator('#trace-detail .llm-not-kept').waitFor();
  });
});
