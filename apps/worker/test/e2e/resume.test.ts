import type { ScriptedHandler } from '@svc/scripted-llm';
import { advance, phaseOf, plan, scriptedAgent } from '@svc/scripted-llm';
import { requestKind, requestsSince } from '../support/e2e-requests';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';
import { eventually } from '@svc/test-kit';
import { hostPidsOf, uniqueSleep } from '../support/procs';

describe('a worker killed mid-step', () => {
  let stack: Stack;
  let interrupted = false;
  // Found on the host by its unique argument (the command has a pid of its sandbox's namespace).
  const seconds = uniqueSleep(120);

  const agent = scriptedAgent({
    planning: [plan('Write the first file', 'Build slowly', 'Use the first file')],
    steps: {
      1: [{ name: 'execute_on_worker', arguments: { command: 'echo first > one.txt' } }, advance('first file written')],
      3: [{ name: 'execute_on_worker', arguments: { command: 'cat one.txt' } }, advance('first file used')],
    },
  });
  /** Step 2 hangs the first time (until the worker is killed), and is quick when it runs again. */
  const handler: ScriptedHandler = (request) => {
    if (phaseOf(request) !== 'execution' || request.stepNumber !== 2) return agent(request);
    if (request.turn > 0) return { tool_calls: [{ name: 'advance_step', arguments: { summary: 'built' } }] };
    const command = interrupted ? 'echo resumed' : `sleep ${seconds}`;
    interrupted = true;
    return { tool_calls: [{ name: 'execute_on_worker', arguments: { command } }] };
  };

  beforeAll(async () => {
    // A killed worker does not come back: a one-second lease hands its workflow on quickly.
    stack = await startStack({ handler, apiEnv: { WORKER_LEASE_SECONDS: '1' } });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
  });

  it(
    'resumes on another worker from the latest snapshot without repeating finished steps',
    async () => {
      const { alice } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, 'Three steps; the second is slow.');
      await eventually(() => hostPidsOf(['sleep', seconds]).length > 0, {
        what: 'step 2 to start its command',
        detail: stack.diagnostics,
      });
      expect((await alice.plan(id)).map((s) => s.status)).toEqual(['done', 'running', 'pending']);

      const [first] = stack.workers;
      await first!.stop('SIGKILL');
      // The command dies with its worker (bwrap --die-with-parent), before another worker resumes the step.
      await eventually(() => hostPidsOf(['sleep', seconds]).length === 0, {
        what: 'the command to die with its worker',
      });
      await stack.waitForStatus(id, 'pending');
      const killedAt = stack.llm.requests.length;
      const stepOneRuns = stack.llm.requests.filter((r) => requestKind(r).step === 1).length;

      await stack.startWorker('e2e-worker-2');
      const done = await stack.waitForStatus(id, 'completed');
      expect(done.worker_id).toBe(await alice.workerId('e2e-worker-2'));

      const after = requestsSince(stack.llm.requests, killedAt);
      expect(after.filter((r) => r.phase === 'planning' || r.step === 1)).toEqual([]);
      expect([...new Set(after.filter((r) => r.phase === 'execution').map((r) => r.step))]).toEqual([2, 3]);
      expect(stack.llm.requests.filter((r) => requestKind(r).step === 1)).toHaveLength(stepOneRuns);

      const log = await alice.log(id);
      expect(log.filter((e) => e.step_index === 0).map((e) => e.tool_name)).toEqual([
        'execute_on_worker',
        'advance_step',
      ]);
      // The interrupted run of step 2 never finished its command, so only the resumed run is logged.
      expect(log.filter((e) => e.step_index === 1 && e.tool_name === 'execute_on_worker').map((e) => e.output)).toEqual(
        ['[exit code 0]\nresumed\n'],
      );
      // The new worker pulled step 1's file from the server.
      expect(log.find((e) => e.step_index === 2 && e.tool_name === 'execute_on_worker')?.output).toBe(
        '[exit code 0]\nfirst\n',
      );
      expect((await alice.plan(id)).map((s) => s.status)).toEqual(['done', 'done', 'done']);
    },
    E2E_TIMEOUT_MS,
  );
});
