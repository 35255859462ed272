import { eventually, snapshot, TestWorker, type Inbox, type Message } from '@svc/test-kit';
import { BrowserServerMessageSchema, type UpdateBody } from '@svc/protocol';
import { TEST_PROVIDERS } from '../support/server';
import { body, createProject, createWorkflow } from '../support/fixtures';
import { llmCall, openBrowser, workerSuite } from './clients';

/** Live command output, log entry fields, LLM call details and step diffs (CONTRACT-V2). */
describe.each(TEST_PROVIDERS)('run page data on %s', (provider) => {
  const suite = workerSuite(provider);
  let projects = 0;

  /** A workflow in a project of its own, dispatched to a fresh worker. */
  async function running(name: string): Promise<{ worker: TestWorker; id: string; seq: { next: number } }> {
    const worker = await suite.start(name);
    const project = await createProject(suite.server, suite.alice, `run details ${++projects}`);
    const { id } = await createWorkflow(suite.server, suite.alice, project.id);
    const { last_seq } = await worker.dispatch(id, 'start');
    return { worker, id, seq: { next: last_seq + 1 } };
  }

  async function subscribed(id: string): Promise<{ ws: { send(text: string): void }; inbox: Inbox }> {
    const client = await openBrowser(suite.server, suite.alice);
    client.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id, since_seq: 0 }));
    await client.inbox.next((m) => m.type === 'subscribed' && m.workflow_id === id);
    return client;
  }

  /** Everything routed to the socket before now has arrived once an answer to a request sent now is here. */
  async function roundTrip(client: { ws: { send(text: string): void }; inbox: Inbox }): Promise<void> {
    const before = client.inbox.messages.length;
    client.ws.send(JSON.stringify({ type: 'subscribe', workflow_id: 'no-such-workflow' }));
    await client.inbox.next((m) => m.type === 'error' && client.inbox.messages.indexOf(m) >= before);
  }

  /** Feedback on the workflow (the lifecycle raises its plan revision), delivered to its worker. */
  async function revise(worker: TestWorker, id: string): Promise<void> {
    const feedback = await suite.server.request(`/svc/api/workflows/${id}/feedback`, {
      method: 'POST',
      as: suite.alice,
      json: { message: 'one more step' },
    });
    expect(feedback.status).toBe(200);
    await worker.dispatch(id, 'feedback');
  }

  const get = async (path: string, as = suite.alice) => suite.server.request(`/svc/api${path}`, { as });
  const output = (inbox: Inbox) => inbox.messages.filter((m) => m.type === 'command_output');

  it('relays command output to the workflow subscribers, outside the seq stream and never stored', async () => {
    const { worker, id, seq } = await running('streamer');
    const other = await running('bystander');
    const page = await subscribed(id);
    const otherPage = await subscribed(other.id);
    const before = await suite.server.deps.db.event.count({ where: { workflow_id: id } });
    const lastSeq = page.inbox.messages.filter((m) => m.workflow_id === id && typeof m.seq === 'number').length;

    const routing = { type: 'command_output', workflow_id: id, call_id: 'call-1' };
    worker.send({ ...routing, event: 'started', step_index: 0, command: 'make', started_at: new Date().toISOString() });
    worker.send({ ...routing, event: 'output', stream: 'stdout', offset: 0, chunk: 'compiling\n' });
    worker.send({ ...routing, event: 'output', stream: 'stderr', offset: 0, chunk: 'warning: \u00fc\n' });
    worker.send({ ...routing, event: 'finished', exit_code: 0, duration_ms: 42 });
    await page.inbox.next((m) => m.type === 'command_output' && m.data.event === 'finished');

    const relayed = output(page.inbox);
    expect(relayed.map((m: Message) => m.data.event)).toEqual(['started', 'output', 'output', 'finished']);
    expect(relayed[2]).toEqual({
      type: 'command_output',
      workflow_id: id,
      data: { call_id: 'call-1', event: 'output', stream: 'stderr', offset: 0, chunk: 'warning: \u00fc\n' },
    });
    for (const message of relayed) expect(BrowserServerMessageSchema.safeParse(message).success).toBe(true);
    for (const message of relayed) expect(message).not.toHaveProperty('seq');
    // Nothing stored, no seq taken: the next stored event follows the last one with no gap.
    expect(await suite.server.deps.db.event.count({ where: { workflow_id: id } })).toBe(before);
    await worker.store(id, seq.next++, logEntryOf('make', 'compiling\nwarning\n'));
    const next = await page.inbox.next((m) => m.type === 'log_entry' && m.workflow_id === id);
    expect(next.seq).toBe(lastSeq + 2); // the update's workflow_update event, then its log_entry
    // A subscriber of another workflow sees none of it.
    await roundTrip(otherPage);
    expect(output(otherPage.inbox)).toEqual([]);
  });

  it('answers a subscribe mid-command with the running command (its step and command line) and its output so far', async () => {
    const { worker, id } = await running('replayer');
    const watcher = await subscribed(id);
    const routing = { type: 'command_output', workflow_id: id, call_id: 'call-r' };
    const startedAt = new Date().toISOString();
    worker.send({ ...routing, event: 'started', step_index: 1, command: 'npm test', started_at: startedAt });
    worker.send({ ...routing, event: 'output', stream: 'stdout', offset: 0, chunk: 'first line\n' });
    worker.send({ ...routing, event: 'output', stream: 'stderr', offset: 0, chunk: 'a warning\n' });
    await watcher.inbox.next((m) => m.type === 'command_output' && m.data.stream === 'stderr');

    // A page opened now (a reload) gets it all after `subscribed`, with the step index and command.
    const late = await subscribed(id);
    await late.inbox.next((m) => m.type === 'command_output' && m.data.stream === 'stderr');
    expect(output(late.inbox).map((m: Message) => m.data)).toEqual([
      { call_id: 'call-r', event: 'started', step_index: 1, command: 'npm test', started_at: startedAt },
      { call_id: 'call-r', event: 'output', stream: 'stdout', offset: 0, chunk: 'first line\n' },
      { call_id: 'call-r', event: 'output', stream: 'stderr', offset: 0, chunk: 'a warning\n' },
    ]);
    const subscribedAt = late.inbox.messages.findIndex((m) => m.type === 'subscribed');
    expect(late.inbox.messages.findIndex((m) => m.type === 'command_output')).toBeGreaterThan(subscribedAt);

    // Once it finished, a new page gets nothing of it (the stored log entry has it).
    worker.send({ ...routing, event: 'finished', exit_code: 0, duration_ms: 5 });
    await watcher.inbox.next((m) => m.type === 'command_output' && m.data.event === 'finished');
    const after = await subscribed(id);
    await roundTrip(after);
    expect(output(after.inbox)).toEqual([]);
  });

  it('refuses output for a workflow the worker does not hold, and relays nothing', async () => {
    const { id } = await running('holder');
    const intruder = await suite.start('intruder');
    const page = await subscribed(id);
    intruder.send({
      type: 'command_output',
      workflow_id: id,
      call_id: 'forged',
      event: 'output',
      stream: 'stdout',
      offset: 0,
      chunk: 'rm -rf / done\n',
    });
    const refused = await intruder.inbox.next((m) => m.type === 'error');
    expect(refused).toMatchObject({ workflow_id: id, error: { code: 'forbidden' } });
    intruder.send({
      type: 'command_output',
      workflow_id: 'no-such',
      call_id: 'c',
      event: 'finished',
      exit_code: 0,
      duration_ms: 1,
    });
    expect((await intruder.inbox.next((m) => m.type === 'error' && m.workflow_id === 'no-such')).error.code).toBe(
      'not_found',
    );
    await roundTrip(page);
    expect(output(page.inbox)).toEqual([]);
    // A chunk over 16 KiB is invalid input, not relayed.
    intruder.send({
      type: 'command_output',
      workflow_id: id,
      call_id: 'c',
      event: 'output',
      stream: 'stdout',
      offset: 0,
      chunk: 'x'.repeat(16 * 1024 + 1),
    });
    expect(
      (await intruder.inbox.next((m) => m.type === 'error' && m.error.code === 'invalid_input')).error.message,
    ).toMatch(/chunk/);
  });

  it('relays the output of a command another worker runs for the workflow, only while it runs it', async () => {
    const { worker, id } = await running('asker');
    const target = await suite.start('gpu-box');
    const page = await subscribed(id);
    worker.send({
      type: 'exec_request',
      request_id: 'r1',
      target_worker: 'gpu-box',
      workflow_id: id,
      command: 'nvidia-smi',
    });
    const exec = await target.inbox.next((m) => m.type === 'exec');
    const routing = { type: 'command_output', workflow_id: id, call_id: 'remote-1' };
    target.send({ ...routing, event: 'output', stream: 'stdout', offset: 0, chunk: 'GPU 0: ok\n' });
    await page.inbox.next((m) => m.type === 'command_output' && m.data.call_id === 'remote-1');
    target.send({
      type: 'exec_result',
      request_id: exec.request_id,
      exit_code: 0,
      output: 'GPU 0: ok',
      timed_out: false,
    });
    await worker.inbox.next((m) => m.type === 'exec_result' && m.request_id === 'r1');
    // Its exec is answered: the target holds nothing of the workflow any more.
    target.send({ ...routing, event: 'output', stream: 'stdout', offset: 10, chunk: 'late\n' });
    expect((await target.inbox.next((m) => m.type === 'error' && m.workflow_id === id)).error.code).toBe('forbidden');
    await roundTrip(page);
    expect(output(page.inbox).map((m: Message) => m.data.chunk)).toEqual(['GPU 0: ok\n']);
  });

  it('log entries carry the plan revision stamped at store time, the duration and the command', async () => {
    const { worker, id, seq } = await running('logger');
    const page = await subscribed(id);
    await worker.store(id, seq.next++, snapshot('executing', 0, ['running', 'pending']));
    await worker.store(id, seq.next++, logEntryOf('npm test', 'ok', 1500));
    // Feedback revises the plan (the lifecycle raises plan_revision); the worker hears of it, then logs.
    await revise(worker, id);
    await worker.store(id, seq.next++, {
      kind: 'log_entry',
      data: {
        step_index: 0,
        tool_name: 'write_file',
        tool_input: { path: 'a.txt', content: 'x' },
        output: 'ok',
        is_error: false,
      },
    });
    const log = await body(await get(`/workflows/${id}/log`));
    expect(log.items.map((e: Message) => [e.tool_name, e.revision, e.duration_ms, e.command])).toEqual([
      ['execute_on_worker', 0, 1500, 'npm test'],
      ['write_file', 1, null, null],
    ]);
    // The live event and the REST page agree.
    await eventually(() => page.inbox.ofType('log_entry').length === 2);
    expect(page.inbox.ofType('log_entry').map((m: Message) => m.data)).toEqual(log.items);
  });

  it('answers a log page again with what was stored since it was first read (pages are cached per last event)', async () => {
    const { worker, id, seq } = await running('pager');
    await worker.store(id, seq.next++, logEntryOf('make', 'one'));
    const commands = async (query = '') =>
      (await body(await get(`/workflows/${id}/log${query}`))).items.map((e: Message) => e.command);
    expect(await commands()).toEqual(['make']);
    expect(await commands()).toEqual(['make']);
    expect(await commands('?limit=1')).toEqual(['make']);
    await worker.store(id, seq.next++, logEntryOf('make test', 'two'));
    expect(await commands()).toEqual(['make', 'make test']);
    expect(await commands('?limit=1')).toEqual(['make']);
    // The cached answer is the full app's, ETag included (any If-None-Match is answered by the full app).
    const fast = await get(`/workflows/${id}/log`);
    const full = await suite.server.request(`/svc/api/workflows/${id}/log`, {
      as: suite.alice,
      headers: { 'if-none-match': '"other"' },
    });
    expect(fast.headers.get('etag')).toBe(full.headers.get('etag'));
    expect(await fast.text()).toBe(await full.text());
    // Still authorized on every request: an outsider gets nothing from the cache.
    expect((await get(`/workflows/${id}/log`, await suite.server.login('outsider'))).status).toBe(404);
  });

  it('stores LLM call details, serves them to members only, and says which calls have one', async () => {
    const { worker, id, seq } = await running('thinker');
    const other = await running('other-thinker');
    const page = await subscribed(id);
    const detail = {
      messages: [
        { role: 'system', content: 'You plan.' },
        { role: 'user', content: 'Build a todo app \u{1F600}' },
      ],
      reply: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 't', type: 'function', function: { name: 'submit_plan', arguments: '{}' } }],
      },
      truncated: true,
    };
    await worker.store(id, seq.next++, llmCall({ detail }));
    await worker.store(id, seq.next++, llmCall({}));
    await other.worker.store(other.id, other.seq.next++, llmCall({ detail }));

    const calls = (await body(await get(`/workflows/${id}/llm-calls`))).items;
    expect(calls.map((c: Message) => c.has_detail)).toEqual([true, false]);
    const shown = await get(`/workflows/${id}/llm-calls/${calls[0].id}`);
    expect(shown.status).toBe(200);
    expect(await body(shown)).toEqual({ id: calls[0].id, ...detail, created_at: calls[0].created_at });
    expect((await get(`/workflows/${id}/llm-calls/${calls[1].id}`)).status).toBe(404);
    // Another workflow's call is not found through this one, and strangers see nothing.
    const otherCall = (await body(await get(`/workflows/${other.id}/llm-calls`))).items[0];
    expect((await get(`/workflows/${id}/llm-calls/${otherCall.id}`)).status).toBe(404);
    expect((await get(`/workflows/${other.id}/llm-calls/${otherCall.id}`)).status).toBe(200);
    const mallory = await suite.server.login('mallory');
    const refused = await get(`/workflows/${id}/llm-calls/${calls[0].id}`, mallory);
    expect(refused.status).toBe(404);
    expect((await body(refused)).error.code).toBe('not_found');
    // The events say which calls have a detail, and never carry it.
    await eventually(() => page.inbox.ofType('llm_call').length === 2);
    expect(page.inbox.ofType('llm_call').map((m: Message) => m.data)).toEqual(calls);
    const echoed = page.inbox.ofType('workflow_update').filter((m: Message) => m.data.kind === 'llm_call');
    expect(echoed.map((m: Message) => 'detail' in m.data.data)).toEqual([false, false]);
  });

  it('keeps the tool definitions a call offered with its detail (decision 0076)', async () => {
    const { worker, id, seq } = await running('tool-offerer');
    const tools = [
      {
        type: 'function',
        function: { name: 'write_file', description: 'Write a file', parameters: { type: 'object' } },
      },
    ];
    const detail = {
      messages: [{ role: 'user', content: 'Write it' }],
      reply: { role: 'assistant', content: 'Done' },
      truncated: false,
    };
    await worker.store(id, seq.next++, llmCall({ detail: { ...detail, tools } }));
    await worker.store(id, seq.next++, llmCall({ detail }));
    const [offered, plain] = (await body(await get(`/workflows/${id}/llm-calls`))).items;
    expect(await body(await get(`/workflows/${id}/llm-calls/${offered.id}`))).toEqual({
      id: offered.id,
      ...detail,
      tools,
      created_at: offered.created_at,
    });
    // a call that offered no tools (and every detail stored before tools were kept) has no `tools`
    const none = await body(await get(`/workflows/${id}/llm-calls/${plain.id}`));
    expect(none).toEqual({ id: plain.id, ...detail, created_at: plain.created_at });
    expect('tools' in none).toBe(false);
  });

  it('keeps details for llm_detail_retention_days: none at 0, older ones pruned by the sweep', async () => {
    const { worker, id, seq } = await running('forgetful');
    const { db } = suite.server.deps;
    const detail = {
      messages: [{ role: 'user', content: 'hi' }],
      reply: { role: 'assistant', content: 'hello' },
      truncated: false,
    };
    try {
      await db.setting.create({ data: { key: 'llm_detail_retention_days', value: '0' } });
      await worker.store(id, seq.next++, llmCall({ detail }));
      expect((await body(await get(`/workflows/${id}/llm-calls`))).items.map((c: Message) => c.has_detail)).toEqual([
        false,
      ]);
      const detailsOf = () => db.llmCallDetail.count({ where: { call: { workflow_id: id } } });
      expect(await detailsOf()).toBe(0);

      await db.setting.update({ where: { key: 'llm_detail_retention_days' }, data: { value: '2' } });
      await worker.store(id, seq.next++, llmCall({ detail }));
      await worker.store(id, seq.next++, llmCall({ detail }));
      const [, old] = await db.llmCallLog.findMany({ where: { workflow_id: id }, orderBy: { seq: 'asc' } });
      // Made three days ago (before anything read it; the clock never runs backwards for a stored detail).
      await db.llmCallDetail.update({
        where: { call_id: old!.id },
        data: { created_at: new Date(Date.now() - 3 * 24 * 3600 * 1000) },
      });
      const [, , fresh] = (await body(await get(`/workflows/${id}/llm-calls`))).items;
      expect(fresh.has_detail).toBe(true);
      expect(await suite.server.runtime.live.detailRetention.sweep()).toBe(1);
      expect((await get(`/workflows/${id}/llm-calls/${old!.id}`)).status).toBe(404);
      expect((await get(`/workflows/${id}/llm-calls/${fresh.id}`)).status).toBe(200);
      const page = (await body(await get(`/workflows/${id}/llm-calls`))).items;
      expect(page.map((c: Message) => c.has_detail)).toEqual([false, false, true]);

      await db.setting.update({ where: { key: 'llm_detail_retention_days' }, data: { value: '0' } });
      expect(await suite.server.runtime.live.detailRetention.sweep()).toBeGreaterThanOrEqual(1);
      expect(await detailsOf()).toBe(0);
      // The page read before the sweep is not answered again: no call says it has a detail now.
      const after = (await body(await get(`/workflows/${id}/llm-calls`))).items;
      expect(after.map((c: Message) => c.has_detail)).toEqual([false, false, false]);
    } finally {
      await db.setting.deleteMany({ where: { key: 'llm_detail_retention_days' } });
    }
  });

  it('stores step diffs with the plan revision and serves them per step, in seq order', async () => {
    const { worker, id, seq } = await running('differ');
    const page = await subscribed(id);
    const diff = (step: number, text: string): UpdateBody => ({
      kind: 'step_diff',
      data: {
        step_index: step,
        files: [{ path: 'a.txt', status: 'modified', additions: 1, deletions: 1, binary: false }],
        patch: `--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+${text}\n`,
        truncated: false,
      },
    });
    await worker.store(id, seq.next++, snapshot('executing', 0, ['running', 'pending']));
    await worker.store(id, seq.next++, diff(0, 'first'));
    await revise(worker, id);
    await worker.store(id, seq.next++, diff(1, 'second'));
    await worker.store(id, seq.next++, diff(0, 'again'));

    const all = await body(await get(`/workflows/${id}/diffs`));
    expect(all.map((d: Message) => [d.step_index, d.revision, d.patch.split('\n')[4]])).toEqual([
      [0, 0, '+first'],
      [1, 1, '+second'],
      [0, 1, '+again'],
    ]);
    expect(all[0]).toEqual({
      step_index: 0,
      revision: 0,
      files: [{ path: 'a.txt', status: 'modified', additions: 1, deletions: 1, binary: false }],
      patch: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+first\n',
      truncated: false,
      created_at: expect.any(String),
    });
    expect((await body(await get(`/workflows/${id}/diffs?step=0`))).map((d: Message) => d.patch)).toEqual([
      all[0].patch,
      all[2].patch,
    ]);
    expect(await body(await get(`/workflows/${id}/diffs?step=7`))).toEqual([]);
    const bad = await get(`/workflows/${id}/diffs?step=first`);
    expect(bad.status).toBe(400);
    expect((await body(bad)).error.code).toBe('invalid_input');
    expect((await get(`/workflows/${id}/diffs`, await suite.server.login('mallory'))).status).toBe(404);
    // The live event announces the step's files; the patch is read from /diffs.
    await eventually(() => page.inbox.ofType('workflow_update').length >= 3);
    const announced = page.inbox.ofType('workflow_update').filter((m: Message) => m.data.kind === 'step_diff');
    expect(announced[0].data.data).toMatchObject({ step_index: 0, files: all[0].files, patch: '' });
  });
});

function logEntryOf(command: string, output: string, durationMs?: number): UpdateBody {
  return {
    kind: 'log_entry',
    data: {
      step_index: 0,
      tool_name: 'execute_on_worker',
      tool_input: { command },
      output,
      is_error: false,
      ...(durationMs === undefined ? {} : { duration_ms: durationMs }),
    },
  };
}
