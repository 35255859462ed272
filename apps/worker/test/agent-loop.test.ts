import type { ChatRequest } from '@svc/scripted-llm';
import { advance, phaseOf, plan, scriptedAgent } from './support/agent-script';
import { startHarness, type Harness } from './support/harness';

let h: Harness | undefined;
afterEach(async () => {
  if (h) {
    expect(h.server.violations).toEqual([]);
    await h.close();
  }
  h = undefined;
});

type Body = ChatRequest & { messages: Array<{ role: string; content?: unknown }> };
const bodies = (harness: Harness) => harness.llm.requests.map((r) => r.body as Body);

describe('agent loop: a workflow from start to report', () => {
  it('plans, runs each step in a fresh context, reports, and sends every update in seq order', async () => {
    h = await startHarness({
      handler: scriptedAgent({
        title: 'Tiny static site',
        planning: [
          { name: 'kb_search', arguments: { query: 'static sites' } },
          plan('Write the page', 'Check the page', 'Finish'),
        ],
        steps: {
          1: [
            { name: 'write_file', arguments: { path: 'index.html', content: '<h1>SECRET-STEP-ONE</h1>' } },
            { name: 'save_memo', arguments: { note: 'The entry page is index.html' } },
            advance('page written'),
          ],
          2: [
            {
              name: 'execute_on_worker',
              arguments: { command: 'printf %s "$SVC_WORKFLOW_ID" > wf.txt; wc -c < index.html' },
            },
            advance('checked'),
          ],
        },
        report: '# Tiny site\n\n## Summary\n\nA page was built.',
      }),
    });
    h.rest.kbResults = [{ article_id: 'a1', article_title: 'Web', text: 'Use plain HTML.', score: 0.9 }];
    h.dispatch({ action: 'start', workflow_id: 'wf-a', last_seq: 5 });
    await h.waitForStatus('wf-a', 'completed');
    await h.worker.manager.idle();
    await h.server.until(() => h!.worker.uplink.outbox.size === 0);

    const updates = h.updates('wf-a');
    expect(updates.map((u) => u.seq)).toEqual(updates.map((_, i) => 6 + i));
    expect(h.statuses('wf-a')).toEqual(['planning', 'running', 'completed']);
    expect(updates.find((u) => u.kind === 'title')?.data).toEqual({ title: 'Tiny static site' });

    const logs = updates.flatMap((u) => (u.kind === 'log_entry' ? [u.data] : []));
    expect(logs.map((l) => `${l.step_index}:${l.tool_name}`)).toEqual([
      'null:kb_search',
      'null:submit_plan',
      '0:write_file',
      '0:save_memo',
      '0:advance_step',
      '1:execute_on_worker',
      '1:advance_step',
      '2:advance_step',
    ]);
    expect(logs[0]).toMatchObject({
      tool_input: { query: 'static sites' },
      output: '1. [Web]\nUse plain HTML.',
      is_error: false,
    });
    expect(logs[5]?.output).toBe('[exit code 0]\n24\n');

    // one llm_call per LLM request, with the server's token counts
    const llmCalls = updates.flatMap((u) => (u.kind === 'llm_call' ? [u.data] : []));
    const served = h.llm.requests.filter((r) => r.status === 200);
    expect(llmCalls).toHaveLength(served.length);
    expect(llmCalls.map((c) => c.prompt_tokens).sort()).toEqual(served.map((r) => r.usage?.prompt_tokens).sort());
    expect(new Set(llmCalls.map((c) => c.phase))).toEqual(new Set(['title', 'planning', 'executing', 'report']));

    // step 2 starts fresh: system + user only, the memo but nothing of step 1's conversation
    const step2First = bodies(h).find(
      (b) =>
        phaseOf({ system: String(b.messages[0]?.content) } as never) === 'execution' &&
        String(b.messages[1]?.content).includes('Step 2 of 3'),
    );
    expect(step2First?.messages).toHaveLength(2);
    expect(String(step2First?.messages[1]?.content)).toContain('The entry page is index.html');
    expect(JSON.stringify(step2First)).not.toContain('SECRET-STEP-ONE');

    const files = h.rest.workspace('wf-a');
    expect(files.get('wf.txt')?.toString()).toBe('wf-a');
    expect(updates.filter((u) => u.kind === 'file_changed').map((u) => (u.data as { path: string }).path)).toEqual([
      'index.html',
      'wf.txt',
      'report.md',
    ]);

    const appUrl = `${h.server.url}/svc/api/workflows/wf-a/files/index.html`;
    expect(updates.find((u) => u.kind === 'report')?.data).toEqual({ path: 'report.md', app_url: appUrl });
    expect(files.get('report.md')?.toString()).toBe(
      `# Tiny site\n\nApp URL: ${appUrl}\n\n## Summary\n\nA page was built.\n`,
    );

    const last = updates.filter((u) => u.kind === 'snapshot').pop();
    expect(last?.data).toMatchObject({
      phase: 'completed',
      current_step: null,
      memo: ['The entry page is index.html'],
    });
    expect((last?.data as { steps: Array<{ status: string }> }).steps.map((s) => s.status)).toEqual([
      'done',
      'done',
      'done',
    ]);
  });

  it('generates a title on its own dispatch without running the workflow', async () => {
    h = await startHarness({ handler: scriptedAgent({ title: '"Title: Weather dashboard."' }) });
    h.dispatch({ action: 'generate_title', workflow_id: 'wf-t', last_seq: 3 });
    await h.server.until(() => h!.updates('wf-t').some((u) => u.kind === 'title'));
    const updates = h.updates('wf-t');
    expect(updates.map((u) => [u.seq, u.kind])).toEqual([
      [4, 'llm_call'],
      [5, 'title'],
    ]);
    expect(updates[1]?.data).toEqual({ title: 'Weather dashboard' });
  });

  it('runs no more workflows at once than its capacity', async () => {
    h = await startHarness({
      config: { capacity: 1 },
      handler: scriptedAgent({
        planning: [plan('Wait a bit')],
        steps: { 1: [{ name: 'execute_on_worker', arguments: { command: 'sleep 0.3' } }, advance()] },
      }),
    });
    h.dispatch({ action: 'start', workflow_id: 'wf-1' });
    h.dispatch({ action: 'start', workflow_id: 'wf-2' });
    await h.server.until(() => h!.statuses('wf-1').includes('planning'));
    expect(h.worker.manager.activeWorkflows()).toEqual(['wf-1']);
    expect(h.statuses('wf-2')).toEqual([]);
    await h.waitForStatus('wf-2', 'completed');
    const completedFirst = h.server.received.findIndex(
      (m) => m.type === 'update' && m.workflow_id === 'wf-1' && m.kind === 'status' && m.data.status === 'completed',
    );
    const secondStarted = h.server.received.findIndex(
      (m) => m.type === 'update' && m.workflow_id === 'wf-2' && m.kind === 'status',
    );
    expect(completedFirst).toBeLessThan(secondStarted);
  });
});
