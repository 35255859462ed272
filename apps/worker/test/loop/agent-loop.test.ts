import type { SnapshotData, SnapshotListItem, Worker } from '@svc/protocol';
import type { ChatRequest } from '@svc/scripted-llm';
import { eventually, Session, TEST_PROVIDERS, TestWorker } from '@svc/test-kit';
import { advance, phaseOf, plan, scriptedAgent } from '@svc/scripted-llm';
import { startHarness, type Harness, type HarnessOptions } from '../support/harness';
import { SERVER_SETUP_MS, startServerFixture, type ServerFixture } from '../support/real-server';

type Body = ChatRequest & { messages: Array<{ role: string; content?: unknown }> };
const bodies = (harness: Harness) => harness.llm.requests.map((r) => r.body as Body);

describe.each(TEST_PROVIDERS)('agent loop against the real server on %s', (provider) => {
  let server: ServerFixture;
  let h: Harness | undefined;

  beforeAll(async () => {
    server = await startServerFixture({ provider, env: { LOG_LEVEL: 'warn' } });
  }, SERVER_SETUP_MS);
  afterAll(() => server?.close());
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const harness = async (options: HarnessOptions) => (h = await startHarness(server, options));

  it('plans, runs each step in a fresh context, reports, and sends every update in seq order', async () => {
    const root = await Session.signIn(server.api.url, 'root');
    await root.json('/kb', { method: 'PUT', json: { text: '# Web\n\nUse plain HTML.' } });
    const h = await harness({
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
    const id = await h.start();
    await h.waitForStatus(id, 'completed');
    await h.worker.manager.idle();
    await eventually(() => h.worker.uplink.outbox.size === 0, { what: 'every update acknowledged' });

    // Every update was stored once, numbered without gaps, in the order the worker sent them.
    const updates = h.updates(id);
    const seqs = h.acked(id);
    expect(seqs).toEqual(updates.map((_, i) => seqs[0]! + i));
    const logRows = await server.alice.log(id);
    const snapshotRows = (
      await server.alice.json<{ items: SnapshotListItem[] }>(`/workflows/${id}/snapshots?limit=1000`)
    ).items;
    const seqOf = (kind: string) => updates.flatMap((u, i) => (u.kind === kind ? [seqs[0]! + i] : []));
    expect(logRows.map((r) => r.seq)).toEqual(seqOf('log_entry'));
    expect(snapshotRows.map((r) => r.seq)).toEqual(seqOf('snapshot'));

    expect(h.statuses(id)).toEqual(['planning', 'running', 'completed']);
    expect(updates.find((u) => u.kind === 'title')?.data).toEqual({ title: 'Tiny static site' });
    expect((await server.alice.workflow(id)).title).toBe('Tiny static site');

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
    expect(logRows[0]?.tool_input).toBe('query: static sites\n');
    expect(logs[5]?.output).toBe('[exit code 0]\n24\n');

    // one llm_call per LLM request, with the server's token counts
    const llmCalls = updates.flatMap((u) => (u.kind === 'llm_call' ? [u.data] : []));
    const served = h.llm.requests.filter((r) => r.status === 200);
    expect(llmCalls).toHaveLength(served.length);
    expect(llmCalls.map((c) => c.prompt_tokens).sort()).toEqual(served.map((r) => r.usage?.prompt_tokens).sort());
    expect(new Set(llmCalls.map((c) => c.phase))).toEqual(new Set(['title', 'planning', 'executing', 'report']));
    expect((await server.alice.llmCalls(id)).items).toHaveLength(served.length);

    // step 2 starts fresh: system + user only, the memo but nothing of step 1's conversation
    const step2First = bodies(h).find(
      (b) =>
        phaseOf({ system: String(b.messages[0]?.content) } as never) === 'execution' &&
        String(b.messages[1]?.content).includes('Step 2 of 3'),
    );
    expect(step2First?.messages).toHaveLength(2);
    expect(String(step2First?.messages[1]?.content)).toContain('The entry page is index.html');
    expect(JSON.stringify(step2First)).not.toContain('SECRET-STEP-ONE');

    // the workspace reached the server's copy
    expect(await server.alice.file(id, 'wf.txt')).toBe(id);
    expect(await server.alice.file(id, 'index.html')).toBe('<h1>SECRET-STEP-ONE</h1>');
    expect(updates.filter((u) => u.kind === 'file_changed').map((u) => (u.data as { path: string }).path)).toEqual([
      'index.html',
      'wf.txt',
      'report.md',
    ]);

    // no app_base_url: the report names the server's app link from the dispatch
    const appUrl = (await server.alice.workflow(id)).app_link!;
    expect(appUrl).toMatch(new RegExp(`^${server.api.url}/svc/apps/[A-Za-z0-9_-]{43}/$`));
    expect(updates.find((u) => u.kind === 'report')?.data).toEqual({ path: 'report.md', app_url: appUrl });
    expect((await server.alice.workflow(id)).app_url).toBe(appUrl);
    expect(await server.alice.report(id)).toBe(
      `# Tiny site\n\nApp URL: ${appUrl}\n\n## Summary\n\nA page was built.\n`,
    );

    const last = updates.flatMap((u) => (u.kind === 'snapshot' ? [u.data as SnapshotData] : [])).pop();
    expect(last).toMatchObject({ phase: 'completed', current_step: null, memo: ['The entry page is index.html'] });
    expect(last?.steps.map((s) => s.status)).toEqual(['done', 'done', 'done']);
    expect((await server.alice.plan(id)).map((s) => s.status)).toEqual(['done', 'done', 'done']);
  });

  it('generates a title on its own dispatch without running the workflow', async () => {
    // A workflow asked for a worker that is offline waits in the queue; its title is generated by
    // whichever worker is online: this one.
    const elsewhere = await TestWorker.start(server.api, server.token, `elsewhere-${provider}`);
    elsewhere.close();
    await eventually(async () => {
      const workers = await server.alice.json<Worker[]>('/workers');
      return workers.find((w) => w.id === elsewhere.id)?.status === 'offline';
    });
    const h = await harness({ handler: scriptedAgent({ title: '"Title: Weather dashboard."' }) });
    const { id } = await server.alice.createWorkflow(server.projectId, 'Show the weather.', {
      worker_id: elsewhere.id,
    });
    await h.watch(id);
    await eventually(() => h.updates(id).some((u) => u.kind === 'title'), { what: 'the title' });
    await h.worker.manager.idle();

    // Only the title and statuses are asserted: the server refuses the title job's llm_call update
    // (the workflow is not assigned to this worker), so that record is not stored.
    expect(h.updates(id).filter((u) => u.kind === 'title' || u.kind === 'status')).toEqual([
      { kind: 'title', data: { title: 'Weather dashboard' } },
    ]);
    expect(await server.alice.workflow(id)).toMatchObject({ title: 'Weather dashboard', status: 'pending' });
    expect(h.worker.manager.activeWorkflows()).toEqual([]);
    expect(
      h.llm.requests.map((r) => phaseOf({ system: String((r.body as Body).messages[0]?.content) } as never)),
    ).toEqual(['title']);
    await server.alice.json(`/workflows/${id}`, { method: 'DELETE' });
  });

  it('runs no more workflows at once than its capacity', async () => {
    const h = await harness({
      config: { capacity: 1 },
      handler: (request) => {
        if (phaseOf(request) === 'execution' && request.user.includes('First:'))
          return request.turn === 0
            ? { tool_calls: [{ name: 'ask_user', arguments: { question: 'Go on?' } }] }
            : { tool_calls: [{ name: 'advance_step', arguments: { summary: 'answered' } }] };
        return scriptedAgent({ planning: [plan('Only step')] })(request);
      },
    });
    const first = await h.start('First: ask before finishing.');
    const second = await h.start('Second: just finish.');
    await h.waitForStatus(first, 'waiting_user');
    // The first holds the worker's only slot while it waits for the answer: the second is not started.
    expect(h.worker.manager.activeWorkflows()).toEqual([first]);
    expect(h.statuses(second)).toEqual([]);
    expect((await server.alice.workflow(second)).status).toBe('pending');

    await server.alice.json(`/workflows/${first}/answer`, { json: { answer: 'yes' } });
    await h.waitForStatus(second, 'completed');
    const statusOrder = h.browser.messages.flatMap((m) =>
      m.type === 'workflow_update' && m.data.kind === 'status' ? [`${m.workflow_id}:${m.data.data.status}`] : [],
    );
    expect(statusOrder.indexOf(`${first}:completed`)).toBeGreaterThanOrEqual(0);
    expect(statusOrder.indexOf(`${first}:completed`)).toBeLessThan(statusOrder.indexOf(`${second}:planning`));
  });
});
