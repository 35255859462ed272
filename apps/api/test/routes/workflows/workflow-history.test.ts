import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { body, createProject, createWorkflow, storeSnapshot } from '../../support/fixtures';

const steps = (statuses: string[]) =>
  statuses.map((status, i) => ({ title: `Step ${i}`, description: `do ${i}`, status }));

describe.each(TEST_PROVIDERS)('workflow history on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let project: { id: string };
  beforeAll(async () => {
    server = await startTestServer(provider);
    ann = await server.login('ann');
    project = await createProject(server, ann);
  });
  afterAll(async () => server?.close());

  const get = (path: string) => server.request(`/svc/api${path}`, { as: ann });

  it('plan: empty before any snapshot, then rebuilt from the latest one', async () => {
    const workflow = await createWorkflow(server, ann, project.id);
    expect(await body(await get(`/workflows/${workflow.id}/plan`))).toEqual([]);
    await storeSnapshot(server.deps.db, workflow.id, 3, {
      phase: 'planning',
      current_step: null,
      steps: steps(['pending', 'pending']),
    });
    await storeSnapshot(server.deps.db, workflow.id, 9, {
      phase: 'executing',
      current_step: 1,
      steps: steps(['done', 'running', 'pending']),
      memo: ['port 8080'],
    });
    // Only a running workflow has a running step (the worker update path sets the status).
    await server.deps.db.workflow.update({ where: { id: workflow.id }, data: { status: 'running' } });
    const untimed = { started_at: null, finished_at: null }; // no plan_step_status events stored here
    expect(await body(await get(`/workflows/${workflow.id}/plan`))).toEqual([
      { index: 0, title: 'Step 0', description: 'do 0', status: 'done', ...untimed },
      { index: 1, title: 'Step 1', description: 'do 1', status: 'running', ...untimed },
      { index: 2, title: 'Step 2', description: 'do 2', status: 'pending', ...untimed },
    ]);
    await storeSnapshot(server.deps.db, workflow.id, 12, {
      phase: 'completed',
      current_step: null,
      steps: steps(['done', 'done', 'done']),
    });
    const plan: { status: string }[] = await body(await get(`/workflows/${workflow.id}/plan`));
    expect(plan.map((s) => s.status)).toEqual(['done', 'done', 'done']);
  });

  it('snapshots: the history in seq order, paged', async () => {
    const workflow = await createWorkflow(server, ann, project.id);
    for (const seq of [2, 5, 7])
      await storeSnapshot(server.deps.db, workflow.id, seq, {
        phase: 'planning',
        current_step: null,
        steps: steps(['pending']),
      });
    const first = await body(await get(`/workflows/${workflow.id}/snapshots?limit=2`));
    expect(first.items.map((s: { seq: number }) => s.seq)).toEqual([2, 5]);
    expect(first.items[0].snapshot).toEqual({
      phase: 'planning',
      current_step: null,
      steps: steps(['pending']),
      memo: [],
      pending_question: null,
    });
    const second = await body(await get(`/workflows/${workflow.id}/snapshots?limit=2&cursor=${first.next_cursor}`));
    expect(second).toMatchObject({ items: [expect.objectContaining({ seq: 7 })], next_cursor: null });
  });

  it('llm-calls: pages of calls with totals over the whole workflow', async () => {
    const workflow = await createWorkflow(server, ann, project.id);
    await server.deps.db.llmCallLog.createMany({
      data: [1, 2, 3].map((seq) => ({
        workflow_id: workflow.id,
        seq,
        phase: seq === 1 ? 'planning' : 'executing',
        model: 'm',
        prompt_tokens: 100 * seq,
        completion_tokens: 10 * seq,
        latency_ms: seq,
        step_index: seq === 1 ? null : 0,
      })),
    });
    const page = await body(await get(`/workflows/${workflow.id}/llm-calls?limit=1`));
    expect(page.items).toEqual([
      expect.objectContaining({
        phase: 'planning',
        model: 'm',
        prompt_tokens: 100,
        completion_tokens: 10,
        latency_ms: 1,
        step_index: null,
      }),
    ]);
    expect(page.items[0]).not.toHaveProperty('workflow_id');
    expect(page.totals).toEqual({
      calls: 3,
      prompt_tokens: 600,
      completion_tokens: 60,
      latency_ms: 6,
      unknown_usage_calls: 0,
      failed_calls: 0,
    });
    expect(page.next_cursor).toEqual(expect.any(String));
    const empty = await body(await get(`/workflows/${(await createWorkflow(server, ann, project.id)).id}/llm-calls`));
    expect(empty).toEqual({
      items: [],
      next_cursor: null,
      totals: {
        calls: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        latency_ms: 0,
        unknown_usage_calls: 0,
        failed_calls: 0,
      },
    });
  });

  it('llm-calls: unknown usage is null, not 0, and the totals count known values and say how many are unknown', async () => {
    const workflow = await createWorkflow(server, ann, project.id);
    const call = { workflow_id: workflow.id, phase: 'executing', model: 'm', latency_ms: 10, step_index: 0 };
    await server.deps.db.llmCallLog.createMany({
      data: [
        { ...call, seq: 1, prompt_tokens: null, completion_tokens: null, error: 'HTTP 503: 503 busy' },
        { ...call, seq: 2, prompt_tokens: null, completion_tokens: null, attempt: 2, finish_reason: 'stop' },
        { ...call, seq: 3, prompt_tokens: 40, completion_tokens: 4, finish_reason: 'tool_calls' },
      ],
    });
    const page = await body(await get(`/workflows/${workflow.id}/llm-calls`));
    expect(
      page.items.map((c: Record<string, unknown>) => [
        c.prompt_tokens,
        c.completion_tokens,
        c.attempt,
        c.error,
        c.finish_reason,
      ]),
    ).toEqual([
      [null, null, 1, 'HTTP 503: 503 busy', null],
      [null, null, 2, null, 'stop'],
      [40, 4, 1, null, 'tool_calls'],
    ]);
    expect(page.totals).toEqual({
      calls: 3,
      prompt_tokens: 40,
      completion_tokens: 4,
      latency_ms: 30,
      unknown_usage_calls: 2,
      failed_calls: 1,
    });
  });

  it('log: entries by seq with tool_input turned from JSON into YAML', async () => {
    const workflow = await createWorkflow(server, ann, project.id);
    const input = { command: 'npm test', timeout_seconds: 60, env: { CI: true }, script: 'line 1\nline 2\n' };
    await server.deps.db.executionLogEntry.createMany({
      data: [
        {
          workflow_id: workflow.id,
          seq: 4,
          step_index: 0,
          tool_name: 'execute_on_worker',
          tool_input: input,
          output: 'ok',
          is_error: false,
        },
        {
          workflow_id: workflow.id,
          seq: 6,
          step_index: 0,
          tool_name: 'save_memo',
          tool_input: { note: 'ä' },
          output: '',
          is_error: true,
        },
      ],
    });
    const page = await body(await get(`/workflows/${workflow.id}/log`));
    expect(page.items.map((e: { seq: number }) => e.seq)).toEqual([4, 6]);
    expect(page.items[0]).toMatchObject({
      tool_name: 'execute_on_worker',
      step_index: 0,
      output: 'ok',
      is_error: false,
    });
    expect(page.items[0].tool_input).toContain('command: npm test\n');
    expect(parse(page.items[0].tool_input)).toEqual(input);
    expect(page.items[1]).toMatchObject({ tool_input: 'note: ä\n', is_error: true });
    const after = await body(
      await get(`/workflows/${workflow.id}/log?cursor=${Buffer.from('[4]').toString('base64url')}`),
    );
    expect(after.items.map((e: { seq: number }) => e.seq)).toEqual([6]);
  });

  it('report: 404 until report.md exists, then markdown or sandboxed HTML with raw HTML escaped', async () => {
    const workflow = await createWorkflow(server, ann, project.id);
    const missing = await get(`/workflows/${workflow.id}/report`);
    expect(missing.status).toBe(404);
    const report = '# Report\n\nApp: https://app.example.test\n\n<script>alert(1)</script>\n';
    writeFileSync(join(server.dataDir, 'workspaces', project.id, workflow.id, 'report.md'), report);

    const md = await get(`/workflows/${workflow.id}/report`);
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await md.text()).toBe(report);

    const html = await get(`/workflows/${workflow.id}/report?format=html`);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('content-security-policy')).toBe('sandbox');
    expect(html.headers.get('x-content-type-options')).toBe('nosniff');
    const text = await html.text();
    expect(text).toContain('<h1>Report</h1>');
    expect(text).toContain('&lt;script&gt;');
    expect(text).not.toContain('<script>');

    expect((await get(`/workflows/${workflow.id}/report?format=pdf`)).status).toBe(400);
  });

  it('report: a symlink named report.md is not followed', async () => {
    const workflow = await createWorkflow(server, ann, project.id);
    const secret = join(server.dataDir, 'outside.md');
    writeFileSync(secret, 'secret');
    mkdirSync(join(server.dataDir, 'workspaces', project.id, workflow.id), { recursive: true });
    symlinkSync(secret, join(server.dataDir, 'workspaces', project.id, workflow.id, 'report.md'));
    expect((await get(`/workflows/${workflow.id}/report`)).status).toBe(404);
  });

  it('history of a workflow in a project the caller is not in answers 404', async () => {
    const bob = await server.login('bob');
    const workflow = await createWorkflow(server, ann, project.id);
    for (const path of ['plan', 'snapshots', 'llm-calls', 'log', 'report']) {
      expect((await server.request(`/svc/api/workflows/${workflow.id}/${path}`, { as: bob })).status).toBe(404);
    }
  });
});
