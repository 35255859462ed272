import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, FIRST_WORKER, startStack, type Stack } from '../support/e2e-stack';

/** Reads the asker's workflow with the command's SVC_JWT and prints the HTTP status. */
const READ_OWN_WORKFLOW =
  'curl -s -o /dev/null -w "status=%{http_code}" -H "Authorization: Bearer $SVC_JWT" "$SVC_URL/svc/api/workflows/$SVC_WORKFLOW_ID"';
const BUILDER = 'builder';

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
});
