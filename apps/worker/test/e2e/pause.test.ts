import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { eventually } from '@svc/test-kit';
import { requestKind } from '../support/e2e-requests';
import { E2E_TIMEOUT_MS, FIRST_WORKER, startStack, type Stack } from '../support/e2e-stack';

/** Step 1's command says it started, then waits for the test's `go` file; each command appends to ran.txt. */
const WAIT_FOR_GO = 'touch started; while [ ! -f go ]; do sleep 0.05; done; echo one >> ran.txt';
const SECOND = 'echo two >> ran.txt';

describe('pausing and resuming a run on a real worker (decision 0039)', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      handler: scriptedAgent({
        planning: [plan('Wait for the signal', 'Write the second line')],
        steps: {
          1: [{ name: 'execute_on_worker', arguments: { command: WAIT_FOR_GO } }, advance('waited')],
          2: [{ name: 'execute_on_worker', arguments: { command: SECOND } }, advance('written')],
        },
      }),
    });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  const workspaceFile = (workflowId: string, name: string) =>
    path.join(stack.dir, `${FIRST_WORKER}-workspaces`, workflowId, name);
  const llmCallsOf = (step: number) =>
    stack.llm.requests.map(requestKind).filter((r) => r.phase === 'execution' && r.step === step).length;

  it(
    'stops after the running command finishes, makes no LLM call or command while paused, and completes once resumed',
    async () => {
      const { alice } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, 'Wait for a signal, then write two lines.');
      await eventually(() => existsSync(workspaceFile(id, 'started')), { what: 'step 1 command to start' });

      const asked = await alice.json<{ status: string }>(`/workflows/${id}/pause`, { json: {} });
      // The command still runs: the run pauses only at the next tool boundary.
      expect(asked.status).toBe('running');
      const requestsBefore = stack.llm.requests.length;
      writeFileSync(workspaceFile(id, 'go'), '');
      await stack.waitForStatus(id, 'paused');

      // The command ran to its end; the next LLM call (step 1's advance) was not made.
      expect(stack.llm.requests.length).toBe(requestsBefore);
      expect(llmCallsOf(1)).toBe(1);
      expect(await alice.file(id, 'ran.txt')).toBe('one\n');
      const log = (await alice.log(id)).filter((e) => e.step_index !== null);
      expect(log.map((e) => [e.tool_name, e.is_error])).toEqual([['execute_on_worker', false]]);
      // The worker keeps the paused run (its conversation stays in memory).
      const worker = (await alice.json<Array<{ name: string; active: number }>>('/workers')).find(
        (w) => w.name === FIRST_WORKER,
      );
      expect(worker?.active).toBe(1);
      // Refused while paused: feedback and a second pause.
      await expect(alice.json(`/workflows/${id}/feedback`, { json: { message: 'faster' } })).rejects.toMatchObject({
        status: 409,
      });
      await expect(alice.json(`/workflows/${id}/pause`, { json: {} })).rejects.toMatchObject({ status: 409 });
      expect(stack.llm.requests.length).toBe(requestsBefore);

      const resumed = await alice.json<{ status: string }>(`/workflows/${id}/resume`, { json: {} });
      expect(resumed.status).toBe('running');
      await stack.waitForStatus(id, 'completed');

      // Each command ran once, step 1 went on in the same conversation (its second turn, not a new first one).
      expect(await alice.file(id, 'ran.txt')).toBe('one\ntwo\n');
      expect([llmCallsOf(1), llmCallsOf(2)]).toEqual([2, 2]);
      const steps = (await alice.log(id)).filter((e) => e.step_index !== null);
      expect(steps.map((e) => [e.step_index, e.tool_name, e.is_error])).toEqual([
        [0, 'execute_on_worker', false],
        [0, 'advance_step', false],
        [1, 'execute_on_worker', false],
        [1, 'advance_step', false],
      ]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'with interrupt kills the running command, records it as interrupted, and goes on when resumed',
    async () => {
      const { alice } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, 'Wait for a signal that never comes.');
      await eventually(() => existsSync(workspaceFile(id, 'started')), { what: 'step 1 command to start' });

      await alice.json(`/workflows/${id}/pause`, { json: { interrupt: true } });
      await stack.waitForStatus(id, 'paused');
      const log = (await alice.log(id)).filter((e) => e.step_index !== null);
      expect(log.map((e) => [e.tool_name, e.is_error, e.output.split('\n')[0]])).toEqual([
        ['execute_on_worker', true, '[interrupted: the workflow was paused; run it again if it is still needed]'],
      ]);
      expect(existsSync(workspaceFile(id, 'ran.txt'))).toBe(false);

      await alice.json(`/workflows/${id}/resume`, { json: {} });
      await stack.waitForStatus(id, 'completed');
      // The interrupted command did not finish and was not run again by the worker; step 2's did.
      expect(await alice.file(id, 'ran.txt')).toBe('two\n');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'a paused run can be cancelled: its worker ends the run',
    async () => {
      const { alice } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, 'Wait, then be cancelled.');
      await eventually(() => existsSync(workspaceFile(id, 'started')), { what: 'step 1 command to start' });
      await alice.json(`/workflows/${id}/pause`, { json: { interrupt: true } });
      await stack.waitForStatus(id, 'paused');
      const cancelled = await alice.json<{ status: string }>(`/workflows/${id}/cancel`, { json: {} });
      expect(cancelled.status).toBe('cancelled');
      await eventually(
        async () =>
          (await alice.json<Array<{ name: string; active: number }>>('/workers')).find((w) => w.name === FIRST_WORKER)
            ?.active === 0,
        { what: 'the worker to let the cancelled run go', detail: stack.diagnostics },
      );
      expect((await alice.workflow(id)).status).toBe('cancelled');
    },
    E2E_TIMEOUT_MS,
  );
});
