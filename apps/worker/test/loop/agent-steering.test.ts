import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SnapshotData, Timer, Worker } from '@svc/protocol';
import type { ScriptedRequest } from '@svc/scripted-llm';
import { eventually, snapshot, TEST_PROVIDERS, TestWorker } from '@svc/test-kit';
import { workflowDir } from '../../src/workspace/paths';
import { advance, phaseOf, plan, scriptedAgent } from '@svc/scripted-llm';
import { startHarness, type Harness, type HarnessOptions } from '../support/harness';
import { SERVER_SETUP_MS, startServerFixture, type ServerFixture } from '../support/real-server';

function latestSnapshot(harness: Harness, workflowId: string): SnapshotData {
  const snapshots = harness.updates(workflowId).flatMap((u) => (u.kind === 'snapshot' ? [u.data] : []));
  const last = snapshots.pop();
  if (!last) throw new Error('no snapshot yet');
  return last;
}

/** A command that runs until it is killed; it leaves a file in the workspace once it runs. */
const LONG_COMMAND = 'touch long-command.started; sleep 30';
const longCommandRuns = (harness: Harness, workflowId: string) =>
  eventually(() => existsSync(path.join(workflowDir(harness.workspaceRoot, workflowId), 'long-command.started')), {
    what: `the long command of ${workflowId} to start`,
  });

const executionUsers = (harness: Harness) =>
  harness.llm.requests
    .map((r) => r.body as { messages: Array<{ role: string; content?: unknown }> })
    .filter((b) => String(b.messages[0]?.content).startsWith('# svc:execution'))
    .map((b) => String(b.messages[1]?.content));

const logOf = (harness: Harness, workflowId: string, tool: string) =>
  harness.updates(workflowId).find((u) => u.kind === 'log_entry' && u.data.tool_name === tool)?.data;

describe.each(TEST_PROVIDERS)('agent loop: steering through the real server on %s', (provider) => {
  let server: ServerFixture;
  let h: Harness | undefined;
  const others: TestWorker[] = [];

  beforeAll(async () => {
    // The server hands a retried workflow back to its worker once that worker's connection has sent a
    // heartbeat; a short interval keeps the retry test quick.
    // A lost worker's workflow goes on at once (no lease): one test loses a worker on purpose.
    server = await startServerFixture({
      provider,
      env: { LOG_LEVEL: 'warn', WORKER_HEARTBEAT_SECONDS: '1', WORKER_LEASE_SECONDS: '0' },
    });
  }, SERVER_SETUP_MS);
  afterAll(() => server?.close());
  afterEach(async () => {
    for (const worker of others.splice(0)) worker.close();
    await h?.close();
    h = undefined;
  });

  const harness = async (options: HarnessOptions) => (h = await startHarness(server, options));
  const post = (workflowId: string, action: string, body: unknown = {}) =>
    server.alice.json(`/workflows/${workflowId}/${action}`, { json: body });

  it('pauses on ask_user until the user answers, and keeps the answer for later steps', async () => {
    const h = await harness({
      handler: scriptedAgent({
        planning: [plan('Ask', 'Build')],
        steps: { 1: [{ name: 'ask_user', arguments: { question: 'Which colour?' } }, advance('asked')] },
      }),
    });
    const id = await h.start();
    await h.waitForStatus(id, 'waiting_user');
    expect(h.updates(id).find((u) => u.kind === 'status' && u.data.status === 'waiting_user')?.data).toEqual({
      status: 'waiting_user',
      question: 'Which colour?',
    });
    expect(latestSnapshot(h, id).pending_question).toBe('Which colour?');
    expect(await server.alice.workflow(id)).toMatchObject({ status: 'waiting_user', question: 'Which colour?' });

    await post(id, 'answer', { answer: 'blue' });
    await h.waitForStatus(id, 'completed');
    expect(h.statuses(id)).toEqual(['planning', 'running', 'waiting_user', 'running', 'completed']);
    expect(logOf(h, id, 'ask_user')).toMatchObject({
      tool_input: { question: 'Which colour?' },
      output: 'The user answered: blue',
    });
    expect(executionUsers(h).find((u) => u.includes('Step 2 of 2'))).toContain('Q: Which colour?\n  A: blue');
  });

  it('revises the plan on live feedback: kills the running step and resumes from the first changed step', async () => {
    const handler = (request: ScriptedRequest) => {
      const phase = phaseOf(request);
      if (phase === 'planning')
        return { tool_calls: [{ name: 'submit_plan', arguments: plan('A', 'B', 'C').arguments ?? {} }] };
      if (phase === 'revise')
        return { tool_calls: [{ name: 'submit_plan', arguments: plan('A', 'B2', 'C').arguments ?? {} }] };
      if (phase === 'execution' && request.user.includes('## B\n') && request.turn === 0) {
        return { tool_calls: [{ name: 'execute_on_worker', arguments: { command: LONG_COMMAND } }] };
      }
      return scriptedAgent({})(request);
    };
    const h = await harness({ handler });
    const id = await h.start();
    await longCommandRuns(h, id);
    await post(id, 'feedback', { message: 'Step B must use Python.' });
    await h.waitForStatus(id, 'completed');
    // The running command was killed, not waited for.
    expect(logOf(h, id, 'execute_on_worker')).toMatchObject({
      step_index: 1,
      output: '[cancelled]\n(no output)',
      is_error: true,
    });

    const revise = h.llm.requests.find((r) => JSON.stringify(r.body).includes('# svc:revise'));
    expect(JSON.stringify(revise?.body)).toContain('Step B must use Python.');
    const users = executionUsers(h);
    expect(users.filter((u) => u.includes('Step 1 of 3'))).toHaveLength(1);
    expect(users.some((u) => u.includes('## B2'))).toBe(true);
    const final = latestSnapshot(h, id);
    expect(final.steps.map((s) => `${s.title}:${s.status}`)).toEqual(['A:done', 'B2:done', 'C:done']);
    expect(h.statuses(id).filter((s) => s === 'cancelled' || s === 'failed')).toEqual([]);
    expect((await server.alice.plan(id)).map((s) => `${s.title}:${s.status}`)).toEqual(['A:done', 'B2:done', 'C:done']);
  });

  it('cancels: kills the running command and stops the workflow', async () => {
    const h = await harness({
      handler: scriptedAgent({
        planning: [plan('Long')],
        steps: { 1: [{ name: 'execute_on_worker', arguments: { command: LONG_COMMAND } }] },
      }),
    });
    const id = await h.start();
    await longCommandRuns(h, id);
    await post(id, 'cancel');
    await eventually(() => h.worker.manager.activeWorkflows().length === 0, { what: 'the run to stop' });
    await h.worker.manager.idle();
    expect(await server.alice.workflow(id)).toMatchObject({ status: 'cancelled' });
    const log = await eventually(() => logOf(h, id, 'execute_on_worker') ?? false, { what: 'the killed command' });
    expect(log).toMatchObject({ output: '[cancelled]\n(no output)', is_error: true });
  });

  it('fails with the reason when the LLM keeps failing, and a retry resumes from the snapshot', async () => {
    let broken = true;
    const agent = scriptedAgent({ planning: [plan('One', 'Two')] });
    const h = await harness({
      handler: (request) =>
        broken && phaseOf(request) === 'execution' && request.user.includes('Step 2 of 2')
          ? { error: { status: 503, message: 'overloaded' } }
          : agent(request),
    });
    const id = await h.start();
    await h.waitForStatus(id, 'failed');
    const error = 'LLM call failed after 3 attempts: HTTP 503: 503 overloaded';
    expect(h.updates(id).find((u) => u.kind === 'status' && u.data.status === 'failed')?.data).toEqual({
      status: 'failed',
      error,
    });
    expect(await server.alice.workflow(id)).toMatchObject({ status: 'failed', error });
    expect(latestSnapshot(h, id)).toMatchObject({ phase: 'executing', current_step: 1 });

    broken = false;
    const planningCalls = h.llm.requests.filter((r) => JSON.stringify(r.body).includes('# svc:planning')).length;
    const before = h.statuses(id).length;
    await post(id, 'retry');
    await eventually(() => h.statuses(id).slice(before).includes('completed'), { what: 'the retried run' });
    expect(h.llm.requests.filter((r) => JSON.stringify(r.body).includes('# svc:planning'))).toHaveLength(planningCalls);
    expect(h.statuses(id).slice(before)).toEqual(['running', 'completed']);
    expect(executionUsers(h).filter((u) => u.includes('Step 1 of 2'))).toHaveLength(1);
  });

  it('resumes mid-execution from the snapshot of a lost worker, numbering after the last stored seq', async () => {
    // Another worker ran the first step, stored its snapshot at seq 41 and went away.
    const lost = await TestWorker.start(server.api, server.token, `lost-${provider}`);
    others.push(lost);
    // Only that worker is online, so the server gives the new workflow to it.
    await eventually(async () => {
      const workers = await server.alice.json<Worker[]>('/workers');
      return workers.filter((w) => w.status === 'online').every((w) => w.id === lost.id);
    });
    const { id } = await server.alice.createWorkflow(server.projectId, 'Three steps.');
    const start = await lost.dispatch(id, 'start');
    expect((await lost.store(id, start.last_seq + 1, { kind: 'status', data: { status: 'running' } })).type).toBe(
      'ack',
    );
    const stored = snapshot('executing', 1, ['done', 'running', 'pending']);
    if (stored.kind !== 'snapshot') throw new Error('unreachable');
    stored.data.memo = ['port 8080'];
    expect((await lost.store(id, 41, stored)).type).toBe('ack');
    lost.close();
    await eventually(async () => (await server.alice.workflow(id)).status === 'pending', {
      what: 'the workflow back in the queue',
    });

    // A fresh worker picks it up from the queue with that snapshot.
    const h = await harness({ handler: scriptedAgent({}) });
    await h.watch(id);
    await h.waitForStatus(id, 'completed');
    expect((await server.alice.workflow(id)).worker_id).toBe(h.workerId);
    const seqs = h.acked(id);
    expect(seqs[0]).toBe(42);
    expect(seqs).toEqual(seqs.map((_, i) => 42 + i));
    // its updates follow the lost worker's two in the stream
    expect(h.updates(id)).toHaveLength(2 + seqs.length);
    expect(executionUsers(h).map((u) => /Step (\d) of 3/.exec(u)?.[1])).toEqual(['2', '3']);
    expect(executionUsers(h)[0]).toContain('port 8080');
    expect(h.statuses(id)).toEqual(['running', 'running', 'completed']);
  });

  it('pauses on set_timer (status pending) and continues the step when the server fires the timer', async () => {
    const h = await harness({
      handler: (request) => {
        if (phaseOf(request) === 'execution' && request.user.includes('# Note'))
          return request.turn === 0
            ? { tool_calls: [{ name: 'advance_step', arguments: { summary: 'deployed' } }] }
            : null;
        return scriptedAgent({
          planning: [plan('Deploy')],
          steps: { 1: [{ name: 'set_timer', arguments: { seconds: 1, reason: 'wait for deploy' } }] },
        })(request);
      },
    });
    const id = await h.start();
    await h.waitForStatus(id, 'completed');
    expect(h.statuses(id)).toEqual(['planning', 'running', 'pending', 'running', 'completed']);
    expect(await server.alice.json<Timer[]>(`/workflows/${id}/timers`)).toEqual([
      expect.objectContaining({ workflow_id: id, reason: 'wait for deploy', status: 'fired' }),
    ]);
    expect(executionUsers(h).pop()).toContain(
      '# Note\n\nThis step was interrupted and is resumed now: wait for deploy',
    );
  });

  it('relays execute_on_worker to another worker and serves exec requests from others', async () => {
    const gpu = await TestWorker.start(server.api, server.token, `gpu-box-${provider}`);
    others.push(gpu);
    const h = await harness({
      handler: scriptedAgent({
        planning: [plan('Remote')],
        steps: {
          1: [
            { name: 'execute_on_worker', arguments: { command: 'nvidia-smi', worker: `gpu-box-${provider}` } },
            advance(),
          ],
        },
      }),
    });
    const id = await h.start();
    const exec = await gpu.inbox.next((m) => m.type === 'exec');
    expect(exec).toMatchObject({ workflow_id: id, command: 'nvidia-smi', timeout_seconds: 20 });
    gpu.send({ type: 'exec_result', request_id: exec.request_id, exit_code: 0, output: 'GPU 0: ok', timed_out: false });
    await h.waitForStatus(id, 'completed');
    expect(logOf(h, id, 'execute_on_worker')).toMatchObject({
      output: `[exit code 0 on worker gpu-box-${provider}]\nGPU 0: ok`,
      is_error: false,
    });

    // Another worker's agent asks this worker to run a command in the asker's workflow.
    const asker = await TestWorker.start(server.api, server.token, `asker-${provider}`);
    others.push(asker);
    const { id: other } = await server.alice.createWorkflow(server.projectId, 'Ask around.', { worker_id: asker.id });
    await asker.dispatch(other, 'start');
    asker.send({
      type: 'exec_request',
      request_id: 'req-9',
      target_worker: h.name,
      workflow_id: other,
      command: 'printf "%s %s" "$SVC_WORKFLOW_ID" "$(basename "$PWD")"',
    });
    const result = await asker.inbox.next((m) => m.type === 'exec_result');
    expect(result).toEqual({
      type: 'exec_result',
      request_id: 'req-9',
      exit_code: 0,
      output: `${other} ${other}`,
      timed_out: false,
      // when its one line came; line 0 is the asker's status line (decision 0081); not cut: no output object
      output_line_times: {
        started_at: expect.any(String),
        lines: [
          [0, null],
          [1, expect.any(Number)],
        ],
      },
    });
  });
});
