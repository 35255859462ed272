import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SnapshotData } from '@svc/protocol';
import type { ScriptedRequest } from '@svc/scripted-llm';
import { workflowDir } from '../src/workspace/paths';
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

function latestSnapshot(harness: Harness, workflowId: string): SnapshotData {
  const snapshot = harness
    .updates(workflowId)
    .filter((u) => u.kind === 'snapshot')
    .pop();
  if (!snapshot) throw new Error('no snapshot yet');
  return snapshot.data as SnapshotData;
}

/** A command that runs until it is killed; it leaves a file in the workspace once it runs. */
const LONG_COMMAND = 'touch long-command.started; sleep 30';
const longCommandRuns = (harness: Harness, workflowId: string) =>
  harness.server.until(
    () => existsSync(path.join(workflowDir(harness.workspaceRoot, workflowId), 'long-command.started')),
    20_000,
    `the long command of ${workflowId} to start`,
  );

const executionUsers = (harness: Harness) =>
  harness.llm.requests
    .map((r) => r.body as { messages: Array<{ role: string; content?: unknown }> })
    .filter((b) => String(b.messages[0]?.content).startsWith('# svc:execution'))
    .map((b) => String(b.messages[1]?.content));

describe('agent loop: steering from the server', () => {
  it('pauses on ask_user until the answer dispatch arrives, and keeps the answer for later steps', async () => {
    h = await startHarness({
      handler: scriptedAgent({
        planning: [plan('Ask', 'Build')],
        steps: { 1: [{ name: 'ask_user', arguments: { question: 'Which colour?' } }, advance('asked')] },
      }),
    });
    h.dispatch({ action: 'start', workflow_id: 'wf-q' });
    await h.waitForStatus('wf-q', 'waiting_user');
    expect(h.updates('wf-q').find((u) => u.kind === 'status' && u.data.status === 'waiting_user')?.data).toEqual({
      status: 'waiting_user',
      question: 'Which colour?',
    });
    expect(latestSnapshot(h, 'wf-q').pending_question).toBe('Which colour?');

    h.dispatch({ action: 'answer', workflow_id: 'wf-q', message: 'blue' });
    await h.waitForStatus('wf-q', 'completed');
    expect(h.statuses('wf-q')).toEqual(['planning', 'running', 'waiting_user', 'running', 'completed']);
    const askLog = h.updates('wf-q').find((u) => u.kind === 'log_entry' && u.data.tool_name === 'ask_user');
    expect(askLog?.data).toMatchObject({
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
    h = await startHarness({ handler });
    h.dispatch({ action: 'start', workflow_id: 'wf-f' });
    await longCommandRuns(h, 'wf-f');
    h.dispatch({ action: 'feedback', workflow_id: 'wf-f', message: 'Step B must use Python.', last_seq: 1 });
    await h.waitForStatus('wf-f', 'completed', 20_000);
    // The running command was killed, not waited for.
    const killed = h.updates('wf-f').find((u) => u.kind === 'log_entry' && u.data.tool_name === 'execute_on_worker');
    expect(killed?.data).toMatchObject({ step_index: 1, output: '[cancelled]\n(no output)', is_error: true });

    const revise = h.llm.requests.find((r) => JSON.stringify(r.body).includes('# svc:revise'));
    expect(JSON.stringify(revise?.body)).toContain('Step B must use Python.');
    const users = executionUsers(h);
    expect(users.filter((u) => u.includes('Step 1 of 3'))).toHaveLength(1);
    expect(users.some((u) => u.includes('## B2'))).toBe(true);
    const final = latestSnapshot(h, 'wf-f');
    expect(final.steps.map((s) => `${s.title}:${s.status}`)).toEqual(['A:done', 'B2:done', 'C:done']);
    expect(h.statuses('wf-f').filter((s) => s === 'cancelled' || s === 'failed')).toEqual([]);
  });

  it('cancels: kills the running command and reports cancelled', async () => {
    h = await startHarness({
      handler: scriptedAgent({
        planning: [plan('Long')],
        steps: { 1: [{ name: 'execute_on_worker', arguments: { command: LONG_COMMAND } }] },
      }),
    });
    h.dispatch({ action: 'start', workflow_id: 'wf-c' });
    await longCommandRuns(h, 'wf-c');
    h.dispatch({ action: 'cancel', workflow_id: 'wf-c' });
    await h.waitForStatus('wf-c', 'cancelled', 20_000);
    await h.worker.manager.idle();
    expect(h.worker.manager.activeWorkflows()).toEqual([]);
    const log = h.updates('wf-c').find((u) => u.kind === 'log_entry' && u.data.tool_name === 'execute_on_worker');
    expect(log?.data).toMatchObject({ output: '[cancelled]\n(no output)', is_error: true });
  });

  it('fails with the reason when the LLM keeps failing, and a resume from the snapshot finishes the work', async () => {
    let broken = true;
    const agent = scriptedAgent({ planning: [plan('One', 'Two')] });
    h = await startHarness({
      handler: (request) =>
        broken && phaseOf(request) === 'execution' && request.user.includes('Step 2 of 2')
          ? { error: { status: 503, message: 'overloaded' } }
          : agent(request),
    });
    h.dispatch({ action: 'start', workflow_id: 'wf-e' });
    await h.waitForStatus('wf-e', 'failed');
    const failed = h.updates('wf-e').find((u) => u.kind === 'status' && u.data.status === 'failed');
    expect(failed?.data).toEqual({
      status: 'failed',
      error: 'LLM call failed after 3 attempts: HTTP 503: 503 overloaded',
    });
    const snapshot = latestSnapshot(h, 'wf-e');
    expect(snapshot).toMatchObject({ phase: 'executing', current_step: 1 });

    broken = false;
    const lastSeq = Math.max(...h.updates('wf-e').map((u) => u.seq));
    const planningCalls = h.llm.requests.filter((r) => JSON.stringify(r.body).includes('# svc:planning')).length;
    h.dispatch({ action: 'resume', workflow_id: 'wf-e', snapshot, last_seq: lastSeq });
    await h.waitForStatus('wf-e', 'completed');
    expect(h.llm.requests.filter((r) => JSON.stringify(r.body).includes('# svc:planning'))).toHaveLength(planningCalls);
    expect(h.statuses('wf-e').slice(-2)).toEqual(['running', 'completed']);
  });

  it('resumes mid-execution from a snapshot on a fresh worker, numbering after last_seq', async () => {
    h = await startHarness({ handler: scriptedAgent({}) });
    const snapshot: SnapshotData = {
      phase: 'executing',
      current_step: 1,
      steps: [
        { title: 'A', description: 'a', status: 'done', summary: 'did a' },
        { title: 'B', description: 'b', status: 'running' },
        { title: 'C', description: 'c', status: 'pending' },
      ],
      memo: ['port 8080'],
      pending_question: null,
    };
    h.dispatch({ action: 'resume', workflow_id: 'wf-r', snapshot, last_seq: 41 });
    await h.waitForStatus('wf-r', 'completed');
    expect(h.updates('wf-r')[0]?.seq).toBe(42);
    expect(executionUsers(h).map((u) => /Step (\d) of 3/.exec(u)?.[1])).toEqual(['2', '3']);
    expect(h.statuses('wf-r')).toEqual(['running', 'completed']);
  });

  it('pauses on set_timer (status pending) and continues the step when the timer resumes it', async () => {
    h = await startHarness({
      handler: (request) => {
        if (phaseOf(request) === 'execution' && request.user.includes('# Note'))
          return request.turn === 0
            ? { tool_calls: [{ name: 'advance_step', arguments: { summary: 'deployed' } }] }
            : null;
        return scriptedAgent({
          planning: [plan('Deploy')],
          steps: { 1: [{ name: 'set_timer', arguments: { seconds: 60, reason: 'wait for deploy' } }] },
        })(request);
      },
    });
    h.dispatch({ action: 'start', workflow_id: 'wf-z' });
    await h.waitForStatus('wf-z', 'pending');
    await h.worker.manager.idle();
    expect(h.rest.timers).toEqual([{ workflow_id: 'wf-z', seconds: 60, reason: 'wait for deploy' }]);
    const lastSeq = Math.max(...h.updates('wf-z').map((u) => u.seq));
    h.dispatch({
      action: 'resume',
      workflow_id: 'wf-z',
      snapshot: latestSnapshot(h, 'wf-z'),
      message: 'wait for deploy',
      last_seq: lastSeq,
    });
    await h.waitForStatus('wf-z', 'completed');
    expect(executionUsers(h).pop()).toContain(
      '# Note\n\nThis step was interrupted and is resumed now: wait for deploy',
    );
  });

  it('relays execute_on_worker to another worker and serves exec requests from others', async () => {
    h = await startHarness({
      handler: scriptedAgent({
        planning: [plan('Remote')],
        steps: {
          1: [{ name: 'execute_on_worker', arguments: { command: 'nvidia-smi', worker: 'gpu-box' } }, advance()],
        },
      }),
    });
    h.dispatch({ action: 'start', workflow_id: 'wf-x' });
    const request = await h.server.waitFor((m) => m.type === 'exec_request');
    if (request.type !== 'exec_request') throw new Error('unreachable');
    expect(request).toMatchObject({
      target_worker: 'gpu-box',
      workflow_id: 'wf-x',
      command: 'nvidia-smi',
      timeout_seconds: 20,
    });
    h.server.send({
      type: 'exec_result',
      request_id: request.request_id,
      exit_code: 0,
      output: 'GPU 0: ok',
      timed_out: false,
    });
    await h.waitForStatus('wf-x', 'completed');
    const log = h.updates('wf-x').find((u) => u.kind === 'log_entry' && u.data.tool_name === 'execute_on_worker');
    expect(log?.data).toMatchObject({ output: '[exit code 0 on worker gpu-box]\nGPU 0: ok', is_error: false });

    h.server.send({
      type: 'exec',
      request_id: 'req-9',
      workflow_id: 'wf-other',
      command: 'printf "%s %s" "$SVC_WORKFLOW_ID" "$(basename "$PWD")"',
    });
    const result = await h.server.waitFor((m) => m.type === 'exec_result');
    expect(result).toEqual({
      type: 'exec_result',
      request_id: 'req-9',
      exit_code: 0,
      output: 'wf-other wf-other',
      timed_out: false,
    });
  });
});
