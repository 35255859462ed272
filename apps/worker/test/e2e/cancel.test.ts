import { plan, scriptedAgent } from '@svc/scripted-llm';
import { requestKind } from '../support/e2e-requests';
import { E2E_TIMEOUT_MS, FIRST_WORKER, startStack, type Stack } from '../support/e2e-stack';
import { eventually, type ManagedProcess } from '@svc/test-kit';
import { hostPidsOf, uniqueSleep } from '../support/procs';

type LogLine = { msg?: string; workflowId?: string; end?: string; run_id?: string };

function logLines(worker: ManagedProcess): LogLine[] {
  return worker.output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** How the worker process says its run of a workflow ended (its log line), once it has. */
function runEnd(worker: ManagedProcess, workflowId: string): string | undefined {
  return logLines(worker).find((entry) => entry.msg === 'workflow run ended' && entry.workflowId === workflowId)?.end;
}

describe('cancelling a workflow while a command runs', () => {
  let stack: Stack;
  // The command runs in the worker's sandbox (its own pid namespace): the test finds it on the host
  // by its unique argument.
  const seconds = uniqueSleep(300);
  const command = () => `sleep ${seconds}`;

  beforeAll(async () => {
    stack = await startStack({
      handler: (request) =>
        scriptedAgent({
          planning: [plan('Wait a long time', 'Never reached')],
          steps: { 1: [{ name: 'execute_on_worker', arguments: { command: command(), timeout_seconds: 600 } }] },
        })(request),
    });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
  });

  it(
    'kills the process group of the running command and leaves the workflow cancelled',
    async () => {
      const { alice } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, 'Sleep for five minutes.');
      const pid = await eventually(() => hostPidsOf(['sleep', seconds])[0] ?? false, {
        what: 'the sleep command to start',
        detail: stack.diagnostics,
      });

      const cancelled = await alice.json<{ status: string }>(`/workflows/${id}/cancel`, { json: {} });
      expect(cancelled.status).toBe('cancelled');
      const started = Date.now();
      // The command would run for 300 s: the test's time limit only stops a hang.
      await eventually(() => hostPidsOf(['sleep', seconds]).length === 0, {
        what: `command ${pid} to end`,
        intervalMs: 25,
      });
      console.log(`cancel: command gone ${Date.now() - started} ms after POST /cancel`);

      await eventually(
        async () =>
          (await alice.json<Array<{ name: string; active: number }>>('/workers')).find((w) => w.name === FIRST_WORKER)
            ?.active === 0,
        {
          what: 'the worker to hold no workflow',
        },
      );
      // It stays cancelled: the worker's run ends there (step 2 never starts), and once the run's
      // last log entry is stored, nothing has resumed it.
      const end = await eventually(() => runEnd(stack.workers[0]!, id) ?? false, {
        what: 'the worker to end its run of the workflow',
        detail: stack.diagnostics,
      });
      expect(end).toBe('cancelled');
      // every line the worker logged about the run carries its id (issue 26)
      const aboutRun = logLines(stack.workers[0]!).filter((entry) => entry.workflowId === id);
      expect(aboutRun.length).toBeGreaterThan(0);
      expect(aboutRun.filter((entry) => entry.run_id !== id)).toEqual([]);
      await eventually(async () => (await alice.log(id)).some((e) => e.tool_name === 'execute_on_worker'), {
        what: 'the killed command in the log',
      });
      expect(stack.llm.requests.map(requestKind).filter((r) => r.phase === 'execution' && r.step !== 1)).toEqual([]);
      expect((await alice.workflow(id)).status).toBe('cancelled');
      // the step that was running when the workflow was cancelled says so
      expect((await alice.plan(id)).map((s) => [s.status, s.interrupted])).toEqual([
        ['pending', 'cancelled'],
        ['pending', undefined],
      ]);
      const log = await alice.log(id);
      expect(
        log.filter((e) => e.step_index !== null).map((e) => [e.tool_name, e.is_error, e.output.split('\n')[0]]),
      ).toEqual([['execute_on_worker', true, '[cancelled]']]);
    },
    E2E_TIMEOUT_MS,
  );
});
