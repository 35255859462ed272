import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, FIRST_WORKER, startStack, type Stack } from '../support/e2e-stack';

/** Reads the asker's workflow with the command's SVC_JWT and prints the HTTP status. */
const READ_OWN_WORKFLOW =
  'curl -s -o /dev/null -w "status=%{http_code}" -H "Authorization: Bearer $SVC_JWT" "$SVC_URL/svc/api/workflows/$SVC_WORKFLOW_ID"';
const BUILDER = 'builder';
/** About 107 KB of numbered lines: far more than a log entry holds. */
const LONG_OUTPUT = 'seq 1 20000';

/**
 * `execute_on_worker` with a target worker registered with a worker token of its own: that token
 * reaches only workflows dispatched to the target, so the command acts for the asker's workflow with
 * the job token the server hands over with the `exec` (issue 21, finding 5).
 */
describe('a command run on another worker with its own worker token', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      handler: scriptedAgent({
        planning: [plan('Build on the builder')],
        steps: {
          1: [
            { name: 'execute_on_worker', arguments: { worker: BUILDER, command: READ_OWN_WORKFLOW } },
            { name: 'execute_on_worker', arguments: { worker: BUILDER, command: LONG_OUTPUT } },
            advance('built'),
          ],
        },
      }),
    });
    await stack.startWorker(BUILDER, undefined, await stack.root.workerToken());
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  it(
    "gets SVC_JWT for the asker's workflow and reaches it",
    async () => {
      const { alice } = stack;
      const workflow = await alice.createWorkflow(stack.projectId, 'Build it on the builder.', {
        worker_id: FIRST_WORKER,
      });
      await stack.waitForStatus(workflow.id, 'completed');
      const entry = (await alice.log(workflow.id)).find((e) => e.command === READ_OWN_WORKFLOW);
      expect(entry).toMatchObject({ tool_name: 'execute_on_worker', is_error: false });
      expect(entry?.output).toContain('status=200');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "keeps a long output whole: the builder stores it for the asker's run, whose raw log gives it back (decision 0081)",
    async () => {
      const { alice } = stack;
      const workflow = await alice.createWorkflow(stack.projectId, 'Count on the builder.', {
        worker_id: FIRST_WORKER,
      });
      await stack.waitForStatus(workflow.id, 'completed');
      const whole = Array.from({ length: 20_000 }, (_, i) => `${i + 1}\n`).join('');
      const entry = (await alice.log(workflow.id)).find((e) => e.command === LONG_OUTPUT);
      // The entry holds a cut output, the status line first, and says how much the command wrote.
      expect(entry?.output).toMatch(new RegExp(`^\\[exit code 0 on worker ${BUILDER}\\]\\n1\\n2\\n`));
      expect(entry?.output).toMatch(/…\[\d+ bytes of output omitted\]…/);
      expect(entry?.output_total_bytes).toBe(Buffer.byteLength(whole));
      // Line times from the builder, counted from the asker's status line.
      expect(entry?.output_line_times?.lines[0]).toEqual([0, null]);
      expect(entry?.output_line_times?.lines.some(([line, ms]) => line >= 1 && ms !== null)).toBe(true);
      const raw = await alice.text(`/workflows/${workflow.id}/log/raw`);
      expect(raw).toContain(`$ ${LONG_OUTPUT}\n[exit code 0 on worker ${BUILDER}]\n${whole}\n`);
    },
    E2E_TIMEOUT_MS,
  );
});
