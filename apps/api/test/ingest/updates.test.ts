import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { createProject, createWorkflow } from '../support/fixtures';
import { logEntry, snapshot, TestWorker, workerToken } from '@svc/test-kit';
import { SETUP_TIMEOUT_MS } from '../ws/clients';
import { storedStream } from '../support/events';

describe.each(TEST_PROVIDERS)('worker updates on %s', (provider) => {
  let server: TestServer;
  let token: string;
  let alice: string;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer(provider);
    token = await workerToken(server);
    alice = await server.login('alice');
    projectId = (await createProject(server, alice)).id;
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => server?.close());

  /** A workflow started on a fresh worker (the only one connected). */
  async function started(name: string): Promise<{ worker: TestWorker; workflowId: string }> {
    const worker = await TestWorker.start(server, token, name, 5);
    const { id } = await createWorkflow(server, alice, projectId);
    expect(await worker.dispatch(id, 'start')).toMatchObject({
      project_id: projectId,
      requirement: 'Build a todo app',
      last_seq: expect.any(Number),
    });
    return { worker, workflowId: id };
  }

  it('stores every kind in its table, acks each after commit and emits the matching events', async () => {
    const { worker, workflowId: id } = await started('kinds');
    const { db } = server.deps;
    const acks = [
      await worker.store(id, 1, snapshot('executing', 0, ['running', 'pending'])),
      await worker.store(id, 2, logEntry('total 0')),
      await worker.store(id, 3, {
        kind: 'llm_call',
        data: {
          phase: 'executing',
          model: 'm',
          prompt_tokens: 10,
          completion_tokens: 5,
          latency_ms: 40,
          step_index: 0,
        },
      }),
      await worker.store(id, 4, { kind: 'status', data: { status: 'waiting_user', question: 'Which colour?' } }),
      await worker.store(id, 5, { kind: 'title', data: { title: 'Todo app' } }),
      await worker.store(id, 6, { kind: 'report', data: { path: 'report.md', app_url: 'http://apps.local/todo' } }),
      await worker.store(id, 7, {
        kind: 'file_changed',
        data: { path: 'src/app.ts', size: 12, sha256: 'a'.repeat(64) },
      }),
    ];
    expect(acks.map((a) => [a.type, a.seq])).toEqual([1, 2, 3, 4, 5, 6, 7].map((seq) => ['ack', seq]));
    expect(await db.workerUpdate.count({ where: { workflow_id: id } })).toBe(7);
    const snap = await db.agentStateSnapshot.findFirstOrThrow({ where: { workflow_id: id } });
    expect(snap).toMatchObject({ seq: 1, phase: 'executing', current_step: 0 });
    expect(await db.executionLogEntry.findFirstOrThrow({ where: { workflow_id: id } })).toMatchObject({
      seq: 2,
      tool_name: 'execute_on_worker',
      tool_input: { command: 'ls -la' },
      output: 'total 0',
    });
    expect(await db.llmCallLog.findFirstOrThrow({ where: { workflow_id: id } })).toMatchObject({
      seq: 3,
      prompt_tokens: 10,
      latency_ms: 40,
    });
    expect(await db.workflow.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'waiting_user',
      question: 'Which colour?',
      title: 'Todo app',
      title_generated: true,
      app_url: 'http://apps.local/todo',
      last_update_seq: 7,
    });
    const events = await storedStream(db, provider, id);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    // The log entry's two events share one row (the log_entry event is rebuilt from it on replay).
    expect(await db.event.count({ where: { workflow_id: id } })).toBe(events.length - 1);
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'workflow_update')).toHaveLength(7);
    expect(events.filter((e) => e.type === 'plan_step_status').map((e) => e.data)).toEqual([
      { index: 0, title: 'Step 1', status: 'running' },
      { index: 1, title: 'Step 2', status: 'pending' },
    ]);
    expect(events.find((e) => e.type === 'log_entry')?.data).toMatchObject({
      seq: 2,
      tool_input: 'command: ls -la\n',
      output: 'total 0',
    });
    expect(events.find((e) => e.type === 'llm_call')?.data).toMatchObject({ phase: 'executing', prompt_tokens: 10 });
    expect(events.find((e) => e.type === 'workflow_status')?.data).toMatchObject({
      status: 'waiting_user',
      question: 'Which colour?',
    });
    expect(events.find((e) => e.type === 'workflow_title')?.data).toEqual({ title: 'Todo app' });
    expect(events.find((e) => e.type === 'file_changed')?.data).toEqual({
      path: 'src/app.ts',
      size: 12,
      sha256: 'a'.repeat(64),
    });
    // Only the step that changed is announced for the next snapshot.
    await worker.store(id, 8, snapshot('executing', 1, ['done', 'running']));
    const steps = (await storedStream(db, provider, id)).filter(
      (e) => e.type === 'plan_step_status' && e.seq > events.length,
    );
    expect(steps.map((e) => e.data)).toEqual([
      { index: 0, title: 'Step 1', status: 'done' },
      { index: 1, title: 'Step 2', status: 'running' },
    ]);
    worker.close();
  });

  it('stores every LLM attempt: unknown usage as null, failed attempts with their error, older workers as attempt 1', async () => {
    const { worker, workflowId: id } = await started('llm-attempts');
    const { db } = server.deps;
    const call = { phase: 'executing', model: 'm', latency_ms: 9, step_index: 1 } as const;
    await worker.store(id, 1, {
      kind: 'llm_call',
      data: {
        ...call,
        prompt_tokens: null,
        completion_tokens: null,
        attempt: 1,
        error: 'HTTP 429: 429 Rate limit reached',
        finish_reason: null,
      },
    });
    await worker.store(id, 2, {
      kind: 'llm_call',
      data: { ...call, prompt_tokens: null, completion_tokens: null, attempt: 2, error: null, finish_reason: 'stop' },
    });
    // An older worker: numbers, and none of the new fields.
    await worker.store(id, 3, { kind: 'llm_call', data: { ...call, prompt_tokens: 12, completion_tokens: 3 } });

    const rows = await db.llmCallLog.findMany({ where: { workflow_id: id }, orderBy: { seq: 'asc' } });
    expect(rows.map((r) => [r.seq, r.prompt_tokens, r.completion_tokens, r.attempt, r.error, r.finish_reason])).toEqual(
      [
        [1, null, null, 1, 'HTTP 429: 429 Rate limit reached', null],
        [2, null, null, 2, null, 'stop'],
        [3, 12, 3, 1, null, null],
      ],
    );
    const events = await db.event.findMany({ where: { workflow_id: id, type: 'llm_call' }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({
        prompt_tokens: null,
        completion_tokens: null,
        attempt: 1,
        error: 'HTTP 429: 429 Rate limit reached',
      }),
      expect.objectContaining({ prompt_tokens: null, attempt: 2, error: null, finish_reason: 'stop' }),
      expect.objectContaining({
        prompt_tokens: 12,
        completion_tokens: 3,
        attempt: 1,
        error: null,
        finish_reason: null,
      }),
    ]);

    const page = await server.request(`/svc/api/workflows/${id}/llm-calls`, { as: alice });
    expect(page.status).toBe(200);
    const { items, totals } = (await page.json()) as { items: object[]; totals: object };
    expect(items).toEqual([
      expect.objectContaining({
        prompt_tokens: null,
        completion_tokens: null,
        attempt: 1,
        error: expect.stringContaining('429'),
      }),
      expect.objectContaining({ prompt_tokens: null, completion_tokens: null, attempt: 2, error: null }),
      expect.objectContaining({ prompt_tokens: 12, completion_tokens: 3, attempt: 1, error: null }),
    ]);
    expect(totals).toEqual({
      calls: 3,
      prompt_tokens: 12,
      completion_tokens: 3,
      latency_ms: 27,
      unknown_usage_calls: 2,
      failed_calls: 1,
    });
    worker.close();
  });

  it('gives rows time-ordered ids (UUIDv7: the time they were made first), so batches append to the id index', async () => {
    const { worker, workflowId: id } = await started('ordered-ids');
    const before = Date.now();
    const seqs = Array.from({ length: 40 }, (_, i) => i + 1);
    const acked = seqs.map((seq) =>
      worker.inbox.next((m) => m.type === 'ack' && m.workflow_id === id && m.seq === seq),
    );
    for (const seq of seqs) worker.update(id, seq, logEntry(`line ${seq}`));
    await Promise.all(acked);
    const after = Date.now();
    const ids = (await server.deps.db.executionLogEntry.findMany({ where: { workflow_id: id } })).map((row) => row.id);
    expect(new Set(ids).size).toBe(40);
    for (const rowId of ids) {
      expect(rowId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // The first 48 bits are the Unix time in milliseconds when the id was made.
      const madeAt = Number.parseInt(rowId.replace(/-/g, '').slice(0, 12), 16);
      expect(madeAt).toBeGreaterThanOrEqual(before);
      expect(madeAt).toBeLessThanOrEqual(after);
    }
  });

  it('stores duplicate and out-of-order updates once and acks every copy', async () => {
    const { worker, workflowId: id } = await started('dups');
    const { db } = server.deps;
    worker.update(id, 3, logEntry('third'));
    worker.update(id, 1, logEntry('first'));
    worker.update(id, 3, logEntry('third again'));
    worker.update(id, 2, { kind: 'status', data: { status: 'running' } });
    worker.update(id, 1, logEntry('first again'));
    for (const seq of [3, 1, 2]) await worker.inbox.next((m) => m.type === 'ack' && m.seq === seq);
    await worker.inbox.next(
      (m) => worker.inbox.ofType('ack').filter((a) => a.workflow_id === id).length === 5 && m.type === 'ack',
    );
    expect(await db.workerUpdate.count({ where: { workflow_id: id } })).toBe(3);
    expect(
      (await db.executionLogEntry.findMany({ where: { workflow_id: id }, orderBy: { seq: 'asc' } })).map(
        (e) => e.output,
      ),
    ).toEqual(['first', 'third']);
    expect(await db.event.count({ where: { workflow_id: id, type: 'workflow_update' } })).toBe(3);
    expect((await db.workflow.findUniqueOrThrow({ where: { id } })).last_update_seq).toBe(3);

    // A status that arrives after a later status does not overwrite it.
    expect(
      (await worker.store(id, 5, { kind: 'status', data: { status: 'waiting_user', question: 'Go?' } })).type,
    ).toBe('ack');
    expect((await worker.store(id, 4, { kind: 'status', data: { status: 'running' } })).type).toBe('ack');
    expect(await db.workflow.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'waiting_user',
      question: 'Go?',
      last_update_seq: 5,
    });
    worker.close();
  });

  it('refuses updates for a workflow the worker was not given, and invalid snapshots, without storing or acking', async () => {
    const { worker, workflowId: id } = await started('owner');
    const stranger = await TestWorker.start(server, token, 'stranger');
    const refused = await stranger.store(id, 1, logEntry('sneaky'));
    expect(refused).toMatchObject({
      type: 'error',
      error: { code: 'forbidden', message: expect.stringContaining('not assigned to this worker') },
    });
    const unknown = await stranger.store('no-such-workflow', 1, logEntry('lost'));
    expect(unknown.error.code).toBe('not_found');
    const twoRunning = snapshot('executing', 0, ['running', 'running']);
    expect((await worker.store(id, 1, twoRunning)).error).toMatchObject({ code: 'invalid_input' });
    expect(await server.deps.db.workerUpdate.count({ where: { workflow_id: id } })).toBe(0);
    expect(worker.inbox.ofType('ack')).toHaveLength(0);
    expect(stranger.inbox.ofType('ack')).toHaveLength(0);
    worker.close();
    stranger.close();
  });
});
