import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ScriptedHandler } from '@svc/scripted-llm';
import { eventually, type ManagedProcess } from '@svc/test-kit';
import { phaseOf } from '@svc/scripted-llm';
import { requestsSince } from '../support/e2e-requests';
import { E2E_TIMEOUT_MS, FIRST_WORKER, startStack, type Stack } from '../support/e2e-stack';

/** What the scripted agent does in the current test: how many steps, and which one waits at a gate. */
interface Scenario {
  name: string;
  steps: number;
  gatedStep: number;
}

let scenario: Scenario = { name: 'none', steps: 1, gatedStep: 0 };
let dir = '';
const file = (name: string) => path.join(dir, `${scenario.name}-${name}`);

/**
 * Planning submits `steps` steps; each step appends its number to a file outside the workspace (the side
 * effect counted afterwards) and advances. The gated step then waits until the test creates its `go` file.
 */
const handler: ScriptedHandler = (request) => {
  const phase = phaseOf(request);
  if (phase === 'title') return { content: `Outage ${scenario.name}` };
  if (phase === 'report') return { content: '# Report\n\nEvery step ran once.' };
  if (phase === 'planning') {
    const steps = Array.from({ length: scenario.steps }, (_, i) => ({
      title: `Step ${i + 1}`,
      description: `Append ${i + 1} to the runs file.`,
    }));
    return request.turn === 0 ? { tool_calls: [{ name: 'submit_plan', arguments: { steps } }] } : null;
  }
  const n = request.stepNumber;
  if (phase !== 'execution' || n === null) return null;
  if (request.turn === 0) {
    const gate =
      n === scenario.gatedStep
        ? `; touch '${file('started')}'; while [ ! -f '${file('go')}' ]; do sleep 0.05; done`
        : '';
    return {
      tool_calls: [{ name: 'execute_on_worker', arguments: { command: `echo ${n} >> '${file('runs')}'${gate}` } }],
    };
  }
  if (request.turn === 1) return { tool_calls: [{ name: 'advance_step', arguments: { summary: `step ${n} done` } }] };
  return { content: 'done' };
};

/** Resolves at the `count`-th output line (from now on) that contains `text`. */
function lines(proc: ManagedProcess, text: string | string[], count = 1): Promise<string> {
  const parts = typeof text === 'string' ? [text] : text;
  let seen = 0;
  return proc.nextLine((line) => parts.every((part) => line.includes(part)) && ++seen >= count);
}

describe('an API outage while a worker runs a workflow', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      handler,
      // Heartbeats every second and offline after 2 s: a server that took work back from a worker it
      // has not heard from since its restart (the old behaviour) would do it within seconds.
      apiEnv: { WORKER_HEARTBEAT_SECONDS: '1', WORKER_OFFLINE_AFTER_SECONDS: '2' },
      // The commands count their runs and wait at a gate in files outside their workspace, which the
      // sandbox would hide; what is tested here is the outage, not isolation (test/sandbox/ does that).
      workerConfig: { sandbox: 'none' },
    });
    dir = stack.dir;
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  /** Runs a workflow of `scenario`; `outage` is called once the gated step's command has started. */
  async function runThrough(next: Scenario, outage: (worker: ManagedProcess) => Promise<void>): Promise<string> {
    scenario = next;
    const { alice } = stack;
    const worker = stack.workers[0]!;
    const llmFrom = stack.llm.requests.length;
    const { id } = await alice.createWorkflow(stack.projectId, `Run ${next.steps} steps (${next.name}).`);
    await eventually(() => existsSync(file('started')), {
      what: 'the gated command to start',
      detail: stack.diagnostics,
    });
    await outage(worker);
    const done = await stack.waitForStatus(id, 'completed');
    expect(done.error ?? null).toBeNull();

    const all = Array.from({ length: next.steps }, (_, i) => i + 1);
    // Each step's command ran exactly once.
    expect(readFileSync(file('runs'), 'utf8').trim().split('\n').map(Number)).toEqual(all);
    // The agent planned once and went through each step once (a command turn and an advance turn).
    const requests = requestsSince(stack.llm.requests, llmFrom).filter((r) => r.phase !== 'title');
    expect(requests.filter((r) => r.phase === 'planning')).toHaveLength(1);
    for (const n of all) expect(requests.filter((r) => r.phase === 'execution' && r.step === n)).toHaveLength(2);
    expect(requests.filter((r) => r.phase === 'report')).toHaveLength(1);
    const log = await alice.log(id);
    for (const n of all)
      expect(log.filter((e) => e.step_index === n - 1).map((e) => e.tool_name)).toEqual([
        'execute_on_worker',
        'advance_step',
      ]);
    expect((await alice.plan(id)).map((s) => s.status)).toEqual(all.map(() => 'done'));
    expect(await alice.report(id)).toContain('Every step ran once.');
    // Never failed, never handed out again while the worker still ran it.
    expect(worker.output).not.toContain('workflow failed');
    expect(worker.output).not.toContain('dispatch ignored');
    return id;
  }

  it(
    'completes when the server stops while the last step runs and is back while the report is uploaded',
    async () => {
      await runThrough({ name: 'last-step', steps: 3, gatedStep: 3 }, async (worker) => {
        const disconnected = lines(worker, 'disconnected; reconnecting');
        await stack.api.stop('SIGTERM');
        await disconnected;
        // The step finishes while the server is down; the report upload waits, retrying.
        const retrying = lines(worker, ['server call failed; retrying', '/files/report.md']);
        writeFileSync(file('go'), '');
        await retrying;
        await stack.api.restart();
      });
    },
    E2E_TIMEOUT_MS * 2,
  );

  it(
    'goes on from its own state when the server is killed mid-workflow and restarted after a long outage',
    async () => {
      const id = await runThrough({ name: 'long-outage', steps: 5, gatedStep: 2 }, async (worker) => {
        const disconnected = lines(worker, 'disconnected; reconnecting', 3);
        await stack.api.stop('SIGKILL');
        // The next step's command waits until the server has stored the run's progress (decision 0062).
        const waiting = lines(worker, 'a command waits until the server has stored');
        writeFileSync(file('go'), '');
        // Several reconnect attempts have failed (the next waits seconds) and the next command waits too.
        await Promise.all([disconnected, waiting]);
        await stack.api.restart();
      });
      // The server kept the workflow with the worker through its restart.
      const workflow = await stack.alice.workflow(id);
      expect(workflow.worker_id).toBe(await stack.alice.workerId(FIRST_WORKER));
    },
    E2E_TIMEOUT_MS * 2,
  );
});
